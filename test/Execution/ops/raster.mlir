// Rasterized block ids cover the grid exactly once, also when the last
// panel is narrower (7 x 5 grid, panels of 3), in row and column order:
// every block adds 1 at its (bx, by).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "np.ones((7, 5), np.float32)" dummy=ones:float32:1x1
// RUN: tile-run %s -e rows --target=cpu --no-cache --arg f32:7x5=zeros --check 0=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e columns --target=cpu --no-cache --arg f32:7x5=zeros --check 0=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #0 against {{.*}}ref.npy: ok

func.func @rows(%Out: memref<7x5xf32>) {
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx, %by) in (7, 5) threads(32) raster(#tile.raster<3>) {
    %f = tile.fragment : !tile.fragment<1x1xf32>
    tile.fill %f, %one : !tile.fragment<1x1xf32>
    tile.atomic_add %f -> %Out[%bx, %by] : !tile.fragment<1x1xf32>, memref<7x5xf32>
  }
  return
}

func.func @columns(%Out: memref<7x5xf32>) {
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx, %by) in (7, 5) threads(32) raster(#tile.raster<3, column>) {
    %f = tile.fragment : !tile.fragment<1x1xf32>
    tile.fill %f, %one : !tile.fragment<1x1xf32>
    tile.atomic_add %f -> %Out[%bx, %by] : !tile.fragment<1x1xf32>, memref<7x5xf32>
  }
  return
}
