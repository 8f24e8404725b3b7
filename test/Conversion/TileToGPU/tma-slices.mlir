// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="warp-specialize=false tma-store=false" --canonicalize --cse | FileCheck %s

// A producer reading a 2-d slice of a 3-d tensor (attention's K[b, :, :],
// a rank-reducing subview inside the kernel) takes the TMA version: the
// host describes the whole tensor (the slice's kept dims as it has them)
// with boxes of 1 x 64 x 64, and each bulk copy passes the slice's offset,
// the block id, as its third coordinate.
// CHECK-LABEL: func.func @slices
// CHECK: %[[HOST:.*]] = memref.subview %arg0[0, 0, 0] [%{{.*}}, %arg2, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x?x64xf16, strided<[?, 64, 1]>>
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c1, %c64, %c64] : memref<*xf16> -> <tensor = memref<1x64x64xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %[[BY:[^,]*]],
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %{{.*}}, %[[BY]]], %{{.*}} to %{{.*}} : <tensor = memref<1x64x64xf16
func.func @slices(%K: memref<?x?x64xf16>, %O: memref<64x64xf32>, %seq: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.ceildivui %seq, %c64 : index
  tile.kernel grid(%bx, %b) in (1, 4) threads(128) {
    %k = memref.subview %K[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %j = %c0 to %n step %c1 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %k[%k0, 0] -> %Ks : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ks, %Ks, %acc transpose_b : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %O[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// A slice whose kept dims start at a value of the kernel (here the block
// id) cannot be described by the host: the loop keeps its cp.async version
// only.
// CHECK-LABEL: func.func @kernel_offsets
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK: nvgpu.device_async_copy
// CHECK-NOT: nvgpu.tma.async.load
func.func @kernel_offsets(%K: memref<?x?x64xf16>, %O: memref<64x64xf32>, %seq: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.ceildivui %seq, %c64 : index
  tile.kernel grid(%bx, %b) in (1, 4) threads(128) {
    %row = arith.muli %b, %c64 : index
    %k = memref.subview %K[0, %row, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %j = %c0 to %n step %c1 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %k[%k0, 0] -> %Ks : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ks, %Ks, %acc transpose_b : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %O[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// A slice that drops a dim between its two kept ones (attention's
// BSHD K[b, :, h, :]): the map describes the 4-d tensor with boxes of
// 1 x 64 x 1 x 64, and each bulk copy passes the head and the batch as
// the dropped dims' coordinates (innermost first: column, head, row,
// batch).
// CHECK-LABEL: func.func @bshd_slices
// CHECK: nvgpu.tma.create.descriptor {{.*}} box[%c1, %c64, %c1, %c64] : memref<*xf16> -> <tensor = memref<1x64x1x64xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %[[BY:[^,]*]],
// CHECK: nvgpu.tma.async.load %{{.*}}[%{{.*}}, %[[BX]], %{{.*}}, %[[BY]]], %{{.*}} to %{{.*}} : <tensor = memref<1x64x1x64xf16
func.func @bshd_slices(%K: memref<?x?x4x64xf16>, %O: memref<64x64xf32>, %seq: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %n = arith.ceildivui %seq, %c64 : index
  tile.kernel grid(%h, %b) in (4, 4) threads(128) {
    %k = memref.subview %K[%b, 0, %h, 0] [1, %seq, 1, 64] [1, 1, 1, 1] : memref<?x?x4x64xf16> to memref<?x64xf16, strided<[256, 1], offset: ?>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %j = %c0 to %n step %c1 stages(2) {
      %k0 = arith.muli %j, %c64 : index
      tile.copy %k[%k0, 0] -> %Ks : memref<?x64xf16, strided<[256, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ks, %Ks, %acc transpose_b : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %O[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// Paged KV: the tile's row comes from a block table that the kernel only
// reads. The table is read again for the iteration a copy runs ahead for:
// in the TMA version under the producer's guard (only valid iterations
// fill a stage), in the cp.async version under an scf.if on the
// iteration's validity (past the loop's end the table may end too).
// CHECK-LABEL: func.func @paged
// CHECK: nvgpu.tma.create.descriptor
// CHECK: gpu.launch
// CHECK: scf.if
// CHECK: %[[PAGE:.*]] = memref.load %arg1[%{{.*}}, %{{.*}}] : memref<4x16xi32>
// CHECK: nvgpu.tma.async.load
// CHECK: scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: memref.load %arg1[%{{.*}}, %{{.*}}] : memref<4x16xi32>
// CHECK: } else {
// CHECK-NEXT: scf.yield %c0_i32 : i32
// CHECK: nvgpu.device_async_copy
func.func @paged(%K: memref<4096x64xf16>, %table: memref<4x16xi32>, %O: memref<64x64xf32>, %pages: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c64i = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %b) in (1, 4) threads(128) {
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %j = %c0 to %pages step %c1 stages(2) {
      %page = memref.load %table[%b, %j] : memref<4x16xi32>
      %row32 = arith.muli %page, %c64i : i32
      %row = arith.index_cast %row32 : i32 to index
      tile.copy %K[%row, 0] -> %Ks : memref<4096x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ks, %Ks, %acc transpose_b : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %O[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// A kernel that writes its table: the table's reads stay where they are,
// and so does the copy (no pipeline).
// CHECK-LABEL: func.func @written_table
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: gpu.launch
func.func @written_table(%K: memref<4096x64xf16>, %table: memref<4x16xi32>, %O: memref<64x64xf32>, %pages: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64i = arith.constant 64 : i32
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %b) in (1, 4) threads(128) {
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %j = %c0 to %pages step %c1 stages(2) {
      %page = memref.load %table[%b, %j] : memref<4x16xi32>
      %row32 = arith.muli %page, %c64i : i32
      %row = arith.index_cast %row32 : i32 to index
      tile.copy %K[%row, 0] -> %Ks : memref<4096x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Ks, %Ks, %acc transpose_b : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %O[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
    tile.parallel (%i) in (1) {
      tile.store %c64i, %table[%b, %c0] : memref<4x16xi32>
    }
  }
  return
}
