// Five blocks add their tiles (ones times block id + 1) into the same, partly
// out-of-range, region of the output; adds outside the tensor are dropped.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "np.pad(np.full((6, 8), 15.0, np.float32), ((2, 0), (0, 0)))" dummy=ones:float32:1x1
// RUN: tile-run %s --target=cpu --no-cache --arg f32:8x8=zeros --check 0=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #0 against {{.*}}ref.npy: ok

func.func @atomics(%Out: memref<8x8xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (5) threads(32) {
    %f = tile.fragment : !tile.fragment<16x8xf32>
    %id = arith.addi %bx, %c1 : index
    %i = arith.index_cast %id : index to i32
    %v = arith.sitofp %i : i32 to f32
    tile.fill %f, %v : !tile.fragment<16x8xf32>
    tile.atomic_add %f -> %Out[2, 0] : !tile.fragment<16x8xf32>, memref<8x8xf32>
  }
  return
}
