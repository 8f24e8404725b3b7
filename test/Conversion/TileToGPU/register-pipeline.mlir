// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=gfx942 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_80 features=ldmatrix,mma.sync" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=NVIDIA

// Without asynchronous copies (AMD; NVIDIA with cp.async left out) a
// pipelined loop's copies run one iteration ahead through registers, into
// two copies of each buffer. When the chunks are aligned: the prologue
// loads iteration 0 and stores it into stage 0; each iteration loads the
// next one's 16-byte chunks (a masked load where a chunk crosses the
// tensor's edge), runs the body on one stage, stores the chunks into the
// other and ends with the one barrier; the stages swap. Otherwise the loop
// runs as written. On AMD whole chunks and empty ones (past the edge or the
// last iteration) load through a buffer resource of the tensor: an empty
// one reads at row dim(0), past the buffer's end, which returns zeros.
// CHECK-LABEL: func.func @gemm
// CHECK: dynamic_shared_memory_size %c16384_i32
// CHECK: scf.if
// CHECK:   gpu.barrier
// CHECK:   %[[A:.*]] = amdgpu.fat_raw_buffer_cast %arg0 resetOffset : memref<100x72xf16> to memref<100x72xf16, #amdgpu.address_space<fat_raw_buffer>>
// CHECK:   %[[WHOLE:.*]] = arith.cmpi eq, %[[COUNT:.*]], %c8 : index
// CHECK:   %[[EMPTY:.*]] = arith.cmpi eq, %[[COUNT]], %c0 : index
// CHECK:   %[[FAST:.*]] = arith.ori %[[WHOLE]], %[[EMPTY]] : i1
// CHECK:   scf.if %[[FAST]]
// CHECK:     %[[ROW:.*]] = arith.select %[[WHOLE]], %{{.*}}, %c100 : index
// CHECK:     vector.load %[[A]][%[[ROW]], %{{.*}}] {{.*}} : memref<100x72xf16, #amdgpu.address_space<fat_raw_buffer>>, vector<8xf16>
// CHECK:   } else {
// CHECK:     vector.maskedload %arg0
// CHECK:   %[[B:.*]] = amdgpu.fat_raw_buffer_cast %arg1 resetOffset
// CHECK:   vector.store {{.*}} : memref<4096xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK:   gpu.barrier
// CHECK:   scf.for {{.*}} iter_args(%[[READ:.*]] = %c0, %[[WRITE:.*]] = %c1) -> (index, index)
// CHECK:     vector.load %[[A]]
// CHECK:     vector.load %[[B]]
// CHECK-NOT: gpu.barrier
// CHECK:     amdgpu.mfma
// CHECK-NOT: gpu.barrier
// CHECK:     amdgpu.sched_barrier allow = <none>
// CHECK-NOT: amdgpu.mfma
// CHECK:     vector.store
// CHECK:     vector.store
// CHECK:     gpu.barrier
// CHECK-NEXT: scf.yield %[[WRITE]], %[[READ]]
// CHECK: } else {
// CHECK:   scf.for
// CHECK-NOT: vector.maskedload
// CHECK:   amdgpu.mfma
// NVIDIA-LABEL: func.func @gemm
// NVIDIA-NOT: nvgpu.device_async_copy
// NVIDIA-NOT: amdgpu.fat_raw_buffer_cast
// NVIDIA: scf.for {{.*}} iter_args
// NVIDIA: vector.load %arg0
// NVIDIA: nvgpu.mma.sync
// NVIDIA: vector.store
// NVIDIA: gpu.barrier
// NVIDIA-NEXT: scf.yield
func.func @gemm(%A: memref<100x72xf16>, %B: memref<72x40xf16>, %C: memref<100x40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %c64 : index
    tile.pipelined %kb = %c0 to %c3 step %c1 stages(3) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %As : memref<100x72xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Bs : memref<72x40xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, 0] : !tile.fragment<64x64xf32>, memref<100x40xf32>
  }
  return
}

// -----

// A tensor of dynamic size loads through its buffer resource only while
// its extent fits the resource's 32-bit offsets (2^30 f16 elements);
// otherwise whole chunks load as on other targets.
// CHECK-LABEL: func.func @gemm_dynamic
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: %[[A:.*]] = amdgpu.fat_raw_buffer_cast %arg0 resetOffset
// CHECK: %[[FITS:.*]] = arith.cmpi ult, %{{.*}}, %c1073741824 : index
// CHECK: scf.if
// CHECK:   scf.if %[[FITS]] -> (vector<8xf16>) {
// CHECK:     vector.load %[[A]]
// CHECK:   } else {
// CHECK:     vector.load %arg0
func.func @gemm_dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %kb_end = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (2, 1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %c64 : index
    tile.pipelined %kb = %c0 to %kb_end step %c1 stages(2) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, 0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}

// -----

// Two stages of these buffers would not fit in the chip's LDS: the loop
// runs as written, in the memory one stage needs.
// CHECK-LABEL: func.func @too_large
// CHECK: dynamic_shared_memory_size %c49152_i32
// CHECK-NOT: vector.maskedload
// CHECK: return
// NVIDIA-LABEL: func.func @too_large
// NVIDIA: dynamic_shared_memory_size %c98304_i32
// NVIDIA: vector.maskedload
func.func @too_large(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (2) threads(256) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x64xf32>
    tile.fill %acc, %zero : !tile.fragment<128x64xf32>
    %m0 = arith.muli %bx, %c128 : index
    tile.pipelined %kb = %c0 to %c2 step %c1 stages(2) {
      %k0 = arith.muli %kb, %c128 : index
      tile.copy %A[%m0, %k0] -> %As : memref<256x256xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Bs : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
    }
    tile.copy %acc -> %C[%m0, 0] : !tile.fragment<128x64xf32>, memref<256x256xf32>
  }
  return
}

// -----

// Two loops: doubling both would not fit the chip's LDS, doubling the
// second alone does. The first (the larger stages) runs as written (48
// KiB, no masked loads of A), the second keeps its register pipeline (16
// KiB in memory the first is done with; its loads of the next iteration
// are masked).
// CHECK-LABEL: func.func @drop_the_largest
// CHECK: dynamic_shared_memory_size %c49152_i32
// CHECK-NOT: vector.maskedload %arg0
// CHECK: vector.maskedload %arg2
// CHECK-NOT: vector.maskedload %arg0
// CHECK: return
func.func @drop_the_largest(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %X: memref<100x40xf16>, %C: memref<256x256xf32>, %D: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (2) threads(256) {
    %As = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x64xf32>
    tile.fill %acc, %zero : !tile.fragment<128x64xf32>
    %m0 = arith.muli %bx, %c128 : index
    tile.pipelined %kb = %c0 to %c2 step %c1 stages(2) {
      %k0 = arith.muli %kb, %c128 : index
      tile.copy %A[%m0, %k0] -> %As : memref<256x256xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Bs : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
    }
    tile.copy %acc -> %C[%m0, 0] : !tile.fragment<128x64xf32>, memref<256x256xf32>
    %Xs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Ys = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc2 = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc2, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %kb = %c0 to %c2 step %c1 stages(2) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %X[0, %k0] -> %Xs : memref<100x40xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Ys : memref<256x256xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Xs, %Ys, %acc2 : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc2 -> %D[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}
