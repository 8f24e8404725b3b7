// Reducers (tile.fragment reducer(kind), TileLang's T.alloc_reducer) over
// tensors that are not multiples of the tile, in blocks:
// - @rows: per row, the sum (started at 1 by a fill: the start counts
//   once), the max (no fill: it starts at -inf) and the min (started at 5)
//   of 16 x 32 tiles, updated in tile.parallel loops over whole tiles
//   (iterations along a row accumulate into one element) and finalized
//   after the loop over a row's tiles;
// - @cols: per column, the sum and the max of 16 x 32 tiles, in a
//   tile.pipelined loop;
// - @total: one element: the sum of a vector in chunks of 64, plus its
//   first 16 elements again from a loop whose written layout puts them on
//   other threads than the chunks' (the reducer is then on every thread),
//   and the sum of the chunks' maxima, from a max reducer allocated (and
//   so restarted at -inf) in each chunk's iteration.
// Reads outside the tensor give each kind's identity (a copy's pad).
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{rowref} = %python %S/../reference.py eval %t "np.stack([x.sum(1) + 1, x.max(1), np.minimum(x.min(1), 5)], axis=1)"
// DEFINE: %{colref} = %python %S/../reference.py eval %t "np.stack([x.sum(0), x.max(0)], axis=1)"
// DEFINE: %{totalref} = %python %S/../reference.py eval %t "np.array([x.sum() + x[:16].sum(), sum(x[k:k + 64].max() for k in range(0, x.size, 64))])"
// DEFINE: %{run} = tile-run %s --target=cpu --cache-dir=%t/cache --arg @%t/x.npy --check 1=%t/ref.npy --rtol 1e-5 --atol 1e-4
// RUN: %{rowref} x=rowsign:float32:37x83
// RUN: %{run} -e rows --arg f32:37x3=zeros | FileCheck %s
// RUN: %{rowref} x=rowsign:float32:32x64
// RUN: %{run} -e rows --arg f32:32x3=zeros | FileCheck %s
// RUN: %{rowref} x=rowsign:float32:1x1
// RUN: %{run} -e rows --arg f32:1x3=zeros | FileCheck %s
// RUN: %{colref} x=colsign:float32:37x83
// RUN: %{run} -e cols --arg f32:83x2=zeros | FileCheck %s
// RUN: %{colref} x=colsign:float32:48x32
// RUN: %{run} -e cols --arg f32:32x2=zeros | FileCheck %s
// RUN: %{totalref} x=randn:float32:1000
// RUN: %{run} -e total --arg f32:2=zeros | FileCheck %s
// RUN: %{totalref} x=randn:float32:64
// RUN: %{run} -e total --arg f32:2=zeros | FileCheck %s
// RUN: %{totalref} x=randn:float32:17
// RUN: %{run} -e total --arg f32:2=zeros | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @rows(%X: memref<?x?xf32>, %R: memref<?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  %five = arith.constant 5.0 : f32
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gm = arith.ceildivui %m, %c16 : index
  %nb = arith.ceildivui %n, %c32 : index
  %r0 = memref.subview %R[0, 0] [%m, 1] [1, 1] : memref<?x3xf32> to memref<?xf32, strided<[3], offset: 0>>
  %r1 = memref.subview %R[0, 1] [%m, 1] [1, 1] : memref<?x3xf32> to memref<?xf32, strided<[3], offset: 1>>
  %r2 = memref.subview %R[0, 2] [%m, 1] [1, 1] : memref<?x3xf32> to memref<?xf32, strided<[3], offset: 2>>
  tile.kernel grid(%bx) in (%gm) threads(128) {
    %x = tile.fragment : !tile.fragment<16x32xf32>
    %sum = tile.fragment reducer(sum) : !tile.fragment<16xf32>
    %max = tile.fragment reducer(max) : !tile.fragment<16xf32>
    %min = tile.fragment reducer(min) : !tile.fragment<16xf32>
    tile.fill %sum, %one : !tile.fragment<16xf32>
    tile.fill %min, %five : !tile.fragment<16xf32>
    %m0 = arith.muli %bx, %c16 : index
    scf.for %j = %c0 to %nb step %c1 {
      %n0 = arith.muli %j, %c32 : index
      tile.copy %X[%m0, %n0] -> %x : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.parallel (%i, %k) in (16, 32) {
        %v = tile.load %x[%i, %k] : !tile.fragment<16x32xf32>
        %old = tile.load %sum[%i] : !tile.fragment<16xf32>
        %new = arith.addf %old, %v : f32
        tile.store %new, %sum[%i] : !tile.fragment<16xf32>
      }
      tile.copy %X[%m0, %n0] -> %x {pad = 0xFF800000 : f32} : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.parallel (%i, %k) in (16, 32) {
        %v = tile.load %x[%i, %k] : !tile.fragment<16x32xf32>
        %old = tile.load %max[%i] : !tile.fragment<16xf32>
        %new = arith.maximumf %old, %v : f32
        tile.store %new, %max[%i] : !tile.fragment<16xf32>
      }
      tile.copy %X[%m0, %n0] -> %x {pad = 0x7F800000 : f32} : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.parallel (%i, %k) in (16, 32) {
        %v = tile.load %x[%i, %k] : !tile.fragment<16x32xf32>
        %old = tile.load %min[%i] : !tile.fragment<16xf32>
        %new = arith.minimumf %v, %old : f32
        tile.store %new, %min[%i] : !tile.fragment<16xf32>
      }
    }
    tile.finalize_reducer %sum : !tile.fragment<16xf32>
    tile.finalize_reducer %max : !tile.fragment<16xf32>
    tile.finalize_reducer %min : !tile.fragment<16xf32>
    tile.copy %sum -> %r0[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[3], offset: 0>>
    tile.copy %max -> %r1[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[3], offset: 1>>
    tile.copy %min -> %r2[%m0] : !tile.fragment<16xf32>, memref<?xf32, strided<[3], offset: 2>>
  }
  return
}

func.func @cols(%X: memref<?x?xf32>, %C: memref<?x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gn = arith.ceildivui %n, %c32 : index
  %mb = arith.ceildivui %m, %c16 : index
  %r0 = memref.subview %C[0, 0] [%n, 1] [1, 1] : memref<?x2xf32> to memref<?xf32, strided<[2], offset: 0>>
  %r1 = memref.subview %C[0, 1] [%n, 1] [1, 1] : memref<?x2xf32> to memref<?xf32, strided<[2], offset: 1>>
  tile.kernel grid(%bx) in (%gn) threads(128) {
    %x = tile.fragment : !tile.fragment<16x32xf32>
    %y = tile.fragment : !tile.fragment<16x32xf32>
    %sum = tile.fragment reducer(sum) : !tile.fragment<32xf32>
    %max = tile.fragment reducer(max) : !tile.fragment<32xf32>
    %n0 = arith.muli %bx, %c32 : index
    tile.pipelined %i = %c0 to %mb step %c1 stages(2) {
      %m0 = arith.muli %i, %c16 : index
      tile.copy %X[%m0, %n0] -> %x : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.copy %X[%m0, %n0] -> %y {pad = 0xFF800000 : f32} : memref<?x?xf32>, !tile.fragment<16x32xf32>
      tile.parallel (%r, %k) in (16, 32) {
        %v = tile.load %x[%r, %k] : !tile.fragment<16x32xf32>
        %w = tile.load %y[%r, %k] : !tile.fragment<16x32xf32>
        %s = tile.load %sum[%k] : !tile.fragment<32xf32>
        %t = arith.addf %s, %v : f32
        tile.store %t, %sum[%k] : !tile.fragment<32xf32>
        %a = tile.load %max[%k] : !tile.fragment<32xf32>
        %b = arith.maximumf %a, %w : f32
        tile.store %b, %max[%k] : !tile.fragment<32xf32>
      }
    }
    tile.finalize_reducer %sum : !tile.fragment<32xf32>
    tile.finalize_reducer %max : !tile.fragment<32xf32>
    tile.copy %sum -> %r0[%n0] : !tile.fragment<32xf32>, memref<?xf32, strided<[2], offset: 0>>
    tile.copy %max -> %r1[%n0] : !tile.fragment<32xf32>, memref<?xf32, strided<[2], offset: 1>>
  }
  return
}

func.func @total(%X: memref<?xf32>, %T: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %chunks = arith.ceildivui %n, %c64 : index
  %t0 = memref.subview %T[0] [1] [1] : memref<2xf32> to memref<1xf32, strided<[1]>>
  %t1 = memref.subview %T[1] [1] [1] : memref<2xf32> to memref<1xf32, strided<[1], offset: 1>>
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.fragment : !tile.fragment<64xf32>
    %b = tile.fragment : !tile.fragment<16xf32>
    %total = tile.fragment reducer(sum) : !tile.fragment<1xf32>
    %maxima = tile.fragment reducer(sum) : !tile.fragment<1xf32>
    scf.for %k = %c0 to %chunks step %c1 {
      %k0 = arith.muli %k, %c64 : index
      tile.copy %X[%k0] -> %a : memref<?xf32>, !tile.fragment<64xf32>
      tile.parallel (%i) in (64) {
        %v = tile.load %a[%i] : !tile.fragment<64xf32>
        %s = tile.load %total[%c0] : !tile.fragment<1xf32>
        %t = arith.addf %s, %v : f32
        tile.store %t, %total[%c0] : !tile.fragment<1xf32>
      }
      %chunkmax = tile.fragment reducer(max) : !tile.fragment<1xf32>
      tile.copy %X[%k0] -> %a {pad = 0xFF800000 : f32} : memref<?xf32>, !tile.fragment<64xf32>
      tile.parallel (%i) in (64) {
        %v = tile.load %a[%i] : !tile.fragment<64xf32>
        %s = tile.load %chunkmax[%c0] : !tile.fragment<1xf32>
        %t = arith.maximumf %s, %v : f32
        tile.store %t, %chunkmax[%c0] : !tile.fragment<1xf32>
      }
      tile.finalize_reducer %chunkmax : !tile.fragment<1xf32>
      tile.parallel (%i) in (1) {
        %v = tile.load %chunkmax[%i] : !tile.fragment<1xf32>
        %s = tile.load %maxima[%i] : !tile.fragment<1xf32>
        %t = arith.addf %s, %v : f32
        tile.store %t, %maxima[%i] : !tile.fragment<1xf32>
      }
    }
    tile.copy %X[0] -> %b : memref<?xf32>, !tile.fragment<16xf32>
    tile.parallel (%i) in (16) layout(#tile.fragment<[[2:t64, 8:t1]]>) {
      %v = tile.load %b[%i] : !tile.fragment<16xf32>
      %s = tile.load %total[%c0] : !tile.fragment<1xf32>
      %t = arith.addf %s, %v : f32
      tile.store %t, %total[%c0] : !tile.fragment<1xf32>
    }
    tile.finalize_reducer %total : !tile.fragment<1xf32>
    tile.finalize_reducer %maxima : !tile.fragment<1xf32>
    tile.copy %total -> %t0[0] : !tile.fragment<1xf32>, memref<1xf32, strided<[1]>>
    tile.copy %maxima -> %t1[0] : !tile.fragment<1xf32>, memref<1xf32, strided<[1], offset: 1>>
  }
  return
}
