// Every reduce kind over a tensor that is not a multiple of the tile, in
// blocks: @rows reduces 16 x 32 tiles along dim 1 into a per-row result,
// block after block with clear = false; @cols reduces along dim 0 the same
// way. Each kind reads its tiles with a pad that is its identity (0 for sum,
// absmax and abssum, -inf for max, +inf for min), so the padding of partial
// tiles must not show; rows (columns) past the edge are not written.
// The inputs shift even rows (for @rows) or columns (for @cols) by +10 and
// odd ones by -10, so that a max over an all-negative row or a min over an
// all-positive one would show a zero pad.
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{rowref} = %python %S/../reference.py eval %t "np.stack([x.sum(1), x.max(1), x.min(1), np.abs(x).max(1), np.abs(x).sum(1)], axis=1)"
// DEFINE: %{colref} = %python %S/../reference.py eval %t "np.stack([x.sum(0), x.max(0), x.min(0), np.abs(x).max(0), np.abs(x).sum(0)], axis=1)"
// DEFINE: %{run} = tile-run %s --target=cpu --cache-dir=%t/cache --arg @%t/x.npy --check 1=%t/ref.npy --rtol 1e-5 --atol 1e-5
// RUN: %{rowref} x=rowsign:float32:37x83
// RUN: %{run} -e rows --arg f32:37x5=zeros | FileCheck %s
// RUN: %{rowref} x=rowsign:float32:32x64
// RUN: %{run} -e rows --arg f32:32x5=zeros | FileCheck %s
// RUN: %{rowref} x=rowsign:float32:1x1
// RUN: %{run} -e rows --arg f32:1x5=zeros | FileCheck %s
// RUN: %{colref} x=colsign:float32:37x83
// RUN: %{run} -e cols --arg f32:83x5=zeros | FileCheck %s
// RUN: %{colref} x=colsign:float32:32x64
// RUN: %{run} -e cols --arg f32:64x5=zeros | FileCheck %s
// RUN: %{colref} x=colsign:float32:1x1
// RUN: %{run} -e cols --arg f32:1x5=zeros | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @rows(%X: memref<?x?xf32>, %R: memref<?x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gm = arith.ceildivui %m, %c16 : index
  %nb = arith.ceildivui %n, %c32 : index
  %r0 = memref.subview %R[0, 0] [%m, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 0>>
  %r1 = memref.subview %R[0, 1] [%m, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 1>>
  %r2 = memref.subview %R[0, 2] [%m, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 2>>
  %r3 = memref.subview %R[0, 3] [%m, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 3>>
  %r4 = memref.subview %R[0, 4] [%m, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 4>>
  tile.kernel grid(%bx) in (%gm) threads(128) {
    %x = tile.fragment : !tile.fragment<16x32xf32>
    %sum = tile.fragment : !tile.fragment<16xf32>
    %max = tile.fragment : !tile.fragment<16xf32>
    %min = tile.fragment : !tile.fragment<16xf32>
    %absmax = tile.fragment : !tile.fragment<16xf32>
    %abssum = tile.fragment : !tile.fragment<16xf32>
    tile.fill %sum, %zero : !tile.fragment<16xf32>
    tile.fill %max, %ninf : !tile.fragment<16xf32>
    tile.fill %min, %pinf : !tile.fragment<16xf32>
    tile.fill %absmax, %zero : !tile.fragment<16xf32>
    tile.fill %abssum, %zero : !tile.fragment<16xf32>
    %m0 = arith.muli %bx, %c16 : index
    scf.for %j = %c0 to %nb step %c1 {
      %n0 = arith.muli %j, %c32 : index
      tile.copy %X[%m0, %n0] -> %x : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.reduce sum %x -> %sum dim 1 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<16xf32>
      tile.reduce absmax %x -> %absmax dim 1 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<16xf32>
      tile.reduce abssum %x -> %abssum dim 1 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<16xf32>
      tile.copy %X[%m0, %n0] -> %x {pad = 0xFF800000 : f32} : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.reduce max %x -> %max dim 1 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<16xf32>
      tile.copy %X[%m0, %n0] -> %x {pad = 0x7F800000 : f32} : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.reduce min %x -> %min dim 1 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<16xf32>
    }
    tile.copy %sum -> %r0[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[5], offset: 0>>
    tile.copy %max -> %r1[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[5], offset: 1>>
    tile.copy %min -> %r2[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[5], offset: 2>>
    tile.copy %absmax -> %r3[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[5], offset: 3>>
    tile.copy %abssum -> %r4[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[5], offset: 4>>
  }
  return
}

func.func @cols(%X: memref<?x?xf32>, %C: memref<?x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gn = arith.ceildivui %n, %c32 : index
  %mb = arith.ceildivui %m, %c16 : index
  %r0 = memref.subview %C[0, 0] [%n, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 0>>
  %r1 = memref.subview %C[0, 1] [%n, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 1>>
  %r2 = memref.subview %C[0, 2] [%n, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 2>>
  %r3 = memref.subview %C[0, 3] [%n, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 3>>
  %r4 = memref.subview %C[0, 4] [%n, 1] [1, 1] : memref<?x5xf32> to memref<?xf32, strided<[5], offset: 4>>
  tile.kernel grid(%bx) in (%gn) threads(128) {
    %x = tile.fragment : !tile.fragment<16x32xf32>
    %sum = tile.fragment : !tile.fragment<32xf32>
    %max = tile.fragment : !tile.fragment<32xf32>
    %min = tile.fragment : !tile.fragment<32xf32>
    %absmax = tile.fragment : !tile.fragment<32xf32>
    %abssum = tile.fragment : !tile.fragment<32xf32>
    tile.fill %sum, %zero : !tile.fragment<32xf32>
    tile.fill %max, %ninf : !tile.fragment<32xf32>
    tile.fill %min, %pinf : !tile.fragment<32xf32>
    tile.fill %absmax, %zero : !tile.fragment<32xf32>
    tile.fill %abssum, %zero : !tile.fragment<32xf32>
    %n0 = arith.muli %bx, %c32 : index
    scf.for %i = %c0 to %mb step %c1 {
      %m0 = arith.muli %i, %c16 : index
      tile.copy %X[%m0, %n0] -> %x : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.reduce sum %x -> %sum dim 0 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<32xf32>
      tile.reduce absmax %x -> %absmax dim 0 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<32xf32>
      tile.reduce abssum %x -> %abssum dim 0 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<32xf32>
      tile.copy %X[%m0, %n0] -> %x {pad = 0xFF800000 : f32} : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.reduce max %x -> %max dim 0 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<32xf32>
      tile.copy %X[%m0, %n0] -> %x {pad = 0x7F800000 : f32} : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.reduce min %x -> %min dim 0 {clear = false} : !tile.fragment<16x32xf32>, !tile.fragment<32xf32>
    }
    tile.copy %sum -> %r0[%n0] : !tile.fragment<32xf32>, memref<?xf32, strided<[5], offset: 0>>
    tile.copy %max -> %r1[%n0] : !tile.fragment<32xf32>, memref<?xf32, strided<[5], offset: 1>>
    tile.copy %min -> %r2[%n0] : !tile.fragment<32xf32>, memref<?xf32, strided<[5], offset: 2>>
    tile.copy %absmax -> %r3[%n0] : !tile.fragment<32xf32>, memref<?xf32, strided<[5], offset: 3>>
    tile.copy %abssum -> %r4[%n0] : !tile.fragment<32xf32>, memref<?xf32, strided<[5], offset: 4>>
  }
  return
}
