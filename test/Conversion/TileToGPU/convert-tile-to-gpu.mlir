// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse --split-input-file | FileCheck %s

// A kernel becomes a gpu.launch of its threads with one dynamic shared
// block; a global-to-shared copy and back move 16-byte vectors when the
// tensor is aligned (tested at run time), element by element otherwise.
// CHECK-LABEL: func.func @copy
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %{{.*}}, {{.*}} = %{{.*}}, {{.*}} = %{{.*}}) threads({{.*}}) in ({{.*}} = %c128, {{.*}} = %c1, {{.*}} = %c1) dynamic_shared_memory_size %c16384_i32
// CHECK: gpu.dynamic_shared_memory
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: scf.if
// CHECK: vector.load {{.*}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<8192xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.barrier
func.func @copy(%X: memref<?x?xf16>, %Y: memref<?x?xf16>) {
  tile.kernel grid(%bx) in (4) threads(128) {
    %tile = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %tile : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %tile -> %Y[0, 0] : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
  }
  return
}

// -----

// Fragment elements spread over threads (one row per thread) are stored
// one by one; a fragment whose threads hold runs of 4 consecutive elements
// stores vectors of 4.
// CHECK-LABEL: func.func @spread
// CHECK: vector.store {{.*}} : memref<32xf32>, vector<4xf32>
// CHECK-NOT: vector.store
// CHECK: return
func.func @spread(%X: memref<12x20xf32>, %R: memref<32xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.fragment : !tile.fragment<12x20xf32>
    %rows = tile.fragment : !tile.fragment<12xf32>
    %cols = tile.fragment : !tile.fragment<20xf32>
    tile.copy %X[0, 0] -> %x : memref<12x20xf32>, !tile.fragment<12x20xf32>
    tile.reduce sum %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce sum %x -> %cols dim 0 : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.copy %cols -> %R[12] : !tile.fragment<20xf32>, memref<32xf32>
    tile.copy %rows -> %R[0] : !tile.fragment<12xf32>, memref<32xf32>
  }
  return
}

// -----

// A 3-stage pipelined GEMM: cp.async into triple-buffered shared memory
// (prologue of two groups; per iteration one wait, one barrier, one group),
// ldmatrix and mma.sync for the gemm; the unaligned fallback loop copies
// synchronously.
// CHECK-LABEL: func.func @gemm
// CHECK: dynamic_shared_memory_size %c49152_i32
// CHECK: scf.if
// CHECK-COUNT-4: nvgpu.device_async_copy {{.*}}, 8, {{.*}} {bypassL1} : memref<256x64xf16> to memref<12288xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_create_group
// CHECK: scf.for {{.*}} iter_args
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.device_async_copy
// CHECK: nvgpu.device_async_create_group
// CHECK-NOT: gpu.barrier
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = {{[24]}} : i32, transpose = true}
// CHECK: nvgpu.mma.sync
// CHECK: scf.yield
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK: } else {
// CHECK: scf.for
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvgpu.mma.sync
// CHECK: return
func.func @gemm(%A: memref<256x64xf16>, %B: memref<64x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %bx, %c128 : index
    %n = arith.muli %by, %c128 : index
    tile.pipelined %k = %c0 to %c2 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<256x64xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<64x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<256x256xf32>
  }
  return
}

// -----

// A copy whose source is a view made inside the loop (here a batch slice
// chosen per iteration) cannot be issued ahead: it runs in order, and the
// copy of B alone is pipelined.
// CHECK-LABEL: func.func @gemm_view_in_loop
// CHECK: scf.if
// CHECK-NOT: nvgpu.device_async_copy {{.*}} : memref<{{.*}}strided
// CHECK: nvgpu.device_async_copy {{.*}} : memref<64x256xf16> to
// CHECK-NOT: nvgpu.device_async_copy {{.*}} : memref<{{.*}}strided
// CHECK: } else {
// CHECK: return
func.func @gemm_view_in_loop(%A: memref<2x256x64xf16>, %B: memref<64x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %bx, %c128 : index
    %n = arith.muli %by, %c128 : index
    tile.pipelined %k = %c0 to %c2 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      %Ak = memref.subview %A[%k, 0, 0] [1, 256, 64] [1, 1, 1] : memref<2x256x64xf16> to memref<256x64xf16, strided<[64, 1], offset: ?>>
      tile.copy %Ak[%m, %kk] -> %As : memref<256x64xf16, strided<[64, 1], offset: ?>>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<64x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<256x256xf32>
  }
  return
}

// -----

// bf16 mma.sync is emitted as nvvm.mma.sync (nvgpu's lowering cannot type
// it); stages(1) runs the loop as written.
// CHECK-LABEL: func.func @gemm_bf16
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: nvvm.mma.sync {{.*}} {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
func.func @gemm_bf16(%A: memref<64x64xbf16>, %B: memref<64x64xbf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xbf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %k = %c0 to %c2 step %c1 stages(1) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[0, %kk] -> %As : memref<64x64xbf16>, memref<64x32xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, 0] -> %Bs : memref<64x64xbf16>, memref<32x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xbf16, #gpu.address_space<workgroup>>, memref<32x64xbf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// Row reductions combine across lanes with shuffles. Each thread holds 8
// elements of each of the 4 rows (layout [[4:s8], [2:s4, 128:t1, 4:s1]]):
// it reduces them in registers, then 5 butterfly rounds (xor 1, 2, 4, 8, 16
// over the 32 lanes) combine a warp's 32 lanes, 4 shuffles per round (one
// per row) and no others; lane 0 of each of the 4 warps writes its row
// maxima to shared memory at warp * 4 + row, and every thread combines the
// 4 warps' values of each row. Row 0 is followed through every step.
// CHECK-LABEL: func.func @row_max
// CHECK-DAG: %[[X1:.+]] = arith.constant 1 : i32
// CHECK-DAG: %[[X2:.+]] = arith.constant 2 : i32
// CHECK-DAG: %[[X4:.+]] = arith.constant 4 : i32
// CHECK-DAG: %[[X8:.+]] = arith.constant 8 : i32
// CHECK-DAG: %[[X16:.+]] = arith.constant 16 : i32
// CHECK-DAG: %[[W:.+]] = arith.constant 32 : i32
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C12:.+]] = arith.constant 12 : index
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TX:[^,]+]],
// CHECK-NOT: gpu.shuffle
// CHECK: %[[S1:[^,]+]], %{{[^ ]+}} = gpu.shuffle xor %[[V:[^,]+]], %[[X1]], %[[W]] : f32
// CHECK-NEXT: %[[R1:[^ ]+]] = arith.maximumf %[[V]], %[[S1]] : f32
// CHECK-COUNT-3: gpu.shuffle xor %{{[^,]+}}, %[[X1]], %[[W]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[S2:[^,]+]], %{{[^ ]+}} = gpu.shuffle xor %[[R1]], %[[X2]], %[[W]] : f32
// CHECK-NEXT: %[[R2:[^ ]+]] = arith.maximumf %[[R1]], %[[S2]] : f32
// CHECK-COUNT-3: gpu.shuffle xor %{{[^,]+}}, %[[X2]], %[[W]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[S4:[^,]+]], %{{[^ ]+}} = gpu.shuffle xor %[[R2]], %[[X4]], %[[W]] : f32
// CHECK-NEXT: %[[R4:[^ ]+]] = arith.maximumf %[[R2]], %[[S4]] : f32
// CHECK-COUNT-3: gpu.shuffle xor %{{[^,]+}}, %[[X4]], %[[W]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[S8:[^,]+]], %{{[^ ]+}} = gpu.shuffle xor %[[R4]], %[[X8]], %[[W]] : f32
// CHECK-NEXT: %[[R8:[^ ]+]] = arith.maximumf %[[R4]], %[[S8]] : f32
// CHECK-COUNT-3: gpu.shuffle xor %{{[^,]+}}, %[[X8]], %[[W]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[S16:[^,]+]], %{{[^ ]+}} = gpu.shuffle xor %[[R8]], %[[X16]], %[[W]] : f32
// CHECK-NEXT: %[[R16:[^ ]+]] = arith.maximumf %[[R8]], %[[S16]] : f32
// CHECK-COUNT-3: gpu.shuffle xor %{{[^,]+}}, %[[X16]], %[[W]] : f32
// CHECK-NOT: gpu.shuffle
// CHECK: %[[SCRATCH:[^ ]+]] = memref.view {{.*}} to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[WARP:[^ ]+]] = arith.divui %[[TX]], %[[C32]] : index
// CHECK-NEXT: %[[WID:[^ ]+]] = arith.remui %[[WARP]], %[[C4]] : index
// CHECK: %[[LANE:[^ ]+]] = arith.remui %[[TX]], %[[C32]] : index
// CHECK: %[[LANE0:[^ ]+]] = arith.cmpi eq, %[[LANE]], %[[C0]] : index
// CHECK: gpu.barrier
// CHECK: %[[AT:[^ ]+]] = arith.muli %[[WID]], %[[C4]] : index
// CHECK-NEXT: scf.if %[[LANE0]] {
// CHECK-NEXT: memref.store %[[R16]], %[[SCRATCH]][%[[AT]]]
// CHECK: gpu.barrier
// CHECK-NEXT: %[[W0:[^ ]+]] = memref.load %[[SCRATCH]][%[[C0]]]
// CHECK-NEXT: %[[W1:[^ ]+]] = memref.load %[[SCRATCH]][%[[C4]]]
// CHECK-NEXT: %[[M01:[^ ]+]] = arith.maximumf %[[W0]], %[[W1]] : f32
// CHECK-NEXT: %[[W2:[^ ]+]] = memref.load %[[SCRATCH]][%[[C8]]]
// CHECK-NEXT: %[[M012:[^ ]+]] = arith.maximumf %[[M01]], %[[W2]] : f32
// CHECK-NEXT: %[[W3:[^ ]+]] = memref.load %[[SCRATCH]][%[[C12]]]
// CHECK-NEXT: %[[ROW0:[^ ]+]] = arith.maximumf %[[M012]], %[[W3]] : f32
// CHECK: memref.store %[[ROW0]], %{{[^ ]+}}[%[[C0]]] : memref<4xf32>
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @row_max(%X: memref<4x1024xf32>, %R: memref<4xf32>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %x = tile.fragment : !tile.fragment<4x1024xf32>
    %r = tile.fragment : !tile.fragment<4xf32>
    tile.copy %X[0, 0] -> %x : memref<4x1024xf32>, !tile.fragment<4x1024xf32>
    tile.reduce max %x -> %r dim 1 : !tile.fragment<4x1024xf32>, !tile.fragment<4xf32>
    tile.copy %r -> %R[0] : !tile.fragment<4xf32>, memref<4xf32>
  }
  return
}

// -----

// Shared buffers whose lives do not overlap share memory: %a is dead once
// %b is written, so both sit at offset 0 of a 16 KiB block.
// CHECK-LABEL: func.func @reuse
// CHECK: dynamic_shared_memory_size %c16384_i32
// CHECK: memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4096xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref.view
// CHECK: return
func.func @reuse(%X: memref<64x64xf32>, %Y: memref<64x64xf32>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<64x64xf32, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x64xf32>
    tile.copy %X[0, 0] -> %a : memref<64x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %a -> %f : memref<64x64xf32, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.copy %f -> %b : !tile.fragment<64x64xf32>, memref<64x64xf32, #gpu.address_space<workgroup>>
    tile.copy %b -> %Y[0, 0] : memref<64x64xf32, #gpu.address_space<workgroup>>, memref<64x64xf32>
  }
  return
}

// -----

// A fragment dim read at a uniform index is in every thread's slots
// (#tile.fragment<[[4:s4], [16:t1, 4:s1]]>): row %k of the thread's four
// columns is slot 4 * %k + column, a run-time index into the private
// array; a constant row is a fixed slot.
// CHECK-LABEL: func.func @uniform_index
// CHECK-SAME: %[[K:[a-z0-9]+]]: index)
// CHECK: %[[ROW:.+]] = arith.muli %[[K]], %c4 : index
// CHECK: %[[A:.+]] = memref.load %[[F:[a-z0-9_]+]][%[[ROW]]] : memref<16xf32>
// CHECK: %[[B:.+]] = memref.load %[[F]][%c0] : memref<16xf32>
// CHECK: arith.addf %[[A]], %[[B]] : f32
// CHECK: %[[ROW1:.+]] = arith.muli %[[K]], %c4 : index
// CHECK: %[[AT1:.+]] = arith.addi %[[ROW1]], %c1 : index
// CHECK: memref.load %[[F]][%[[AT1]]] : memref<16xf32>
// CHECK: memref.load %[[F]][%c1] : memref<16xf32>
func.func @uniform_index(%X: memref<4x64xf32>, %Y: memref<64xf32>, %k: index) {
  tile.kernel grid(%b) in (1) threads(64) {
    %f = tile.fragment : !tile.fragment<4x64xf32>
    %r = tile.fragment : !tile.fragment<64xf32>
    tile.copy %X[0, 0] -> %f : memref<4x64xf32>, !tile.fragment<4x64xf32>
    tile.parallel (%i) in (64) {
      %v = tile.load %f[%k, %i] : !tile.fragment<4x64xf32>
      %z = arith.constant 0 : index
      %w = tile.load %f[%z, %i] : !tile.fragment<4x64xf32>
      %a = arith.addf %v, %w : f32
      tile.store %a, %r[%i] : !tile.fragment<64xf32>
    }
    tile.copy %r -> %Y[0] : !tile.fragment<64xf32>, memref<64xf32>
  }
  return
}
