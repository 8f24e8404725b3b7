// Two kernels in one function, the second reading what the first wrote (on
// the CPU each kernel's grid is a loop of its own, its buffers allocated
// before it: this failed in convert-scf-to-cf while block buffers were
// scoped with memref.alloca_scope). Ragged: 13 elements, tiles of 16.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "x * 3 + 1" x=randn:float32:13
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/x.npy --arg f32:13=zeros --check 1=%t/ref.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @twice(%X: memref<13xf32>, %Y: memref<13xf32>) {
  %three = arith.constant 3.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<16xf32>
    tile.copy %X[0] -> %f : memref<13xf32>, !tile.fragment<16xf32>
    tile.parallel (%i) in (16) {
      %v = tile.load %f[%i] : !tile.fragment<16xf32>
      %w = arith.mulf %v, %three : f32
      tile.store %w, %f[%i] : !tile.fragment<16xf32>
    }
    tile.copy %f -> %Y[0] : !tile.fragment<16xf32>, memref<13xf32>
  }
  tile.kernel grid(%bx) in (1) threads(32) {
    %g = tile.fragment : !tile.fragment<16xf32>
    tile.copy %Y[0] -> %g : memref<13xf32>, !tile.fragment<16xf32>
    tile.parallel (%i) in (16) {
      %v = tile.load %g[%i] : !tile.fragment<16xf32>
      %w = arith.addf %v, %one : f32
      tile.store %w, %g[%i] : !tile.fragment<16xf32>
    }
    tile.copy %g -> %Y[0] : !tile.fragment<16xf32>, memref<13xf32>
  }
  return
}
