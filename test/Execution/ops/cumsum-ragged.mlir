// Prefix sums over tensors that are not a multiple of the tile.
// @rows: inclusive scan of each row, 8 x 32 tiles left to right; each
// tile's scan (a fragment) gets the sum of the row's previous tiles added,
// which a clear = false row sum carries. @rows_reverse: the same from the
// right, tiles right to left with a reverse scan, so the zero pad of the
// partial last tile is scanned first. @cols_reverse: a reverse scan down the
// columns of a shared buffer (at most 16 rows), 32 columns per block.
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{run} = tile-run %s --target=cpu --cache-dir=%t/cache --arg @%t/x.npy --check 1=%t/ref.npy --rtol 1e-5 --atol 1e-5
// DEFINE: %{fwd} = %python %S/../reference.py eval %t "np.cumsum(x.astype(np.float64), axis=1)"
// DEFINE: %{rev} = %python %S/../reference.py eval %t "np.flip(np.cumsum(np.flip(x.astype(np.float64), 1), axis=1), 1)"
// DEFINE: %{colrev} = %python %S/../reference.py eval %t "np.flip(np.cumsum(np.flip(x.astype(np.float64), 0), axis=0), 0)"
// RUN: %{fwd} x=randn:float32:19x101
// RUN: %{run} -e rows --arg f32:19x101=zeros | FileCheck %s
// RUN: %{fwd} x=randn:float32:16x64
// RUN: %{run} -e rows --arg f32:16x64=zeros | FileCheck %s
// RUN: %{fwd} x=randn:float32:1x1
// RUN: %{run} -e rows --arg f32:1x1=zeros | FileCheck %s
// RUN: %{rev} x=randn:float32:19x101
// RUN: %{run} -e rows_reverse --arg f32:19x101=zeros | FileCheck %s
// RUN: %{rev} x=randn:float32:16x64
// RUN: %{run} -e rows_reverse --arg f32:16x64=zeros | FileCheck %s
// RUN: %{colrev} x=randn:float32:13x45
// RUN: %{run} -e cols_reverse --arg f32:13x45=zeros | FileCheck %s
// RUN: %{colrev} x=randn:float32:16x64
// RUN: %{run} -e cols_reverse --arg f32:16x64=zeros | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @rows(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gm = arith.ceildivui %m, %c8 : index
  %nb = arith.ceildivui %n, %c32 : index
  tile.kernel grid(%bx) in (%gm) threads(64) {
    %x = tile.fragment : !tile.fragment<8x32xf32>
    %s = tile.fragment : !tile.fragment<8x32xf32>
    %carry = tile.fragment : !tile.fragment<8xf32>
    tile.fill %carry, %zero : !tile.fragment<8xf32>
    %m0 = arith.muli %bx, %c8 : index
    scf.for %j = %c0 to %nb step %c1 {
      %n0 = arith.muli %j, %c32 : index
      tile.copy %X[%m0, %n0] -> %x : memref<?x?xf32>, !tile.fragment<8x32xf32>
      tile.cumsum %x -> %s dim 1 : !tile.fragment<8x32xf32>, !tile.fragment<8x32xf32>
      tile.parallel (%i, %k) in (8, 32) {
        %v = tile.load %s[%i, %k] : !tile.fragment<8x32xf32>
        %c = tile.load %carry[%i] : !tile.fragment<8xf32>
        %w = arith.addf %v, %c : f32
        tile.store %w, %s[%i, %k] : !tile.fragment<8x32xf32>
      }
      tile.copy %s -> %Y[%m0, %n0] : !tile.fragment<8x32xf32>, memref<?x?xf32>
      tile.reduce sum %x -> %carry dim 1 {clear = false} : !tile.fragment<8x32xf32>, !tile.fragment<8xf32>
    }
  }
  return
}

func.func @rows_reverse(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gm = arith.ceildivui %m, %c8 : index
  %nb = arith.ceildivui %n, %c32 : index
  %last = arith.subi %nb, %c1 : index
  tile.kernel grid(%bx) in (%gm) threads(64) {
    %x = tile.fragment : !tile.fragment<8x32xf32>
    %s = tile.fragment : !tile.fragment<8x32xf32>
    %carry = tile.fragment : !tile.fragment<8xf32>
    tile.fill %carry, %zero : !tile.fragment<8xf32>
    %m0 = arith.muli %bx, %c8 : index
    scf.for %jr = %c0 to %nb step %c1 {
      %j = arith.subi %last, %jr : index
      %n0 = arith.muli %j, %c32 : index
      tile.copy %X[%m0, %n0] -> %x : memref<?x?xf32>, !tile.fragment<8x32xf32>
      tile.cumsum %x -> %s dim 1 reverse : !tile.fragment<8x32xf32>, !tile.fragment<8x32xf32>
      tile.parallel (%i, %k) in (8, 32) {
        %v = tile.load %s[%i, %k] : !tile.fragment<8x32xf32>
        %c = tile.load %carry[%i] : !tile.fragment<8xf32>
        %w = arith.addf %v, %c : f32
        tile.store %w, %s[%i, %k] : !tile.fragment<8x32xf32>
      }
      tile.copy %s -> %Y[%m0, %n0] : !tile.fragment<8x32xf32>, memref<?x?xf32>
      tile.reduce sum %x -> %carry dim 1 {clear = false} : !tile.fragment<8x32xf32>, !tile.fragment<8xf32>
    }
  }
  return
}

func.func @cols_reverse(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %gn = arith.ceildivui %n, %c32 : index
  tile.kernel grid(%bx) in (%gn) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf32, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x32xf32, #gpu.address_space<workgroup>>
    %n0 = arith.muli %bx, %c32 : index
    tile.copy %X[0, %n0] -> %a : memref<?x?xf32>, memref<16x32xf32, #gpu.address_space<workgroup>>
    tile.cumsum %a -> %b dim 0 reverse : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<16x32xf32, #gpu.address_space<workgroup>>
    tile.copy %b -> %Y[0, %n0] : memref<16x32xf32, #gpu.address_space<workgroup>>, memref<?x?xf32>
  }
  return
}
