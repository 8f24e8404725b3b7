// Fragment elements read at an index that is the same in every iteration
// of a tile.parallel: a run-time value from outside it (%k, a row picked at
// run time) and constants; a one-element fragment filled at block level and
// read at index 0 in the loop (TileLang's broadcast scalar). Ragged: a
// 3 x 50 tensor in a 4 x 64 fragment. test/Integration/ops.test runs the
// same on the GPU.
// RUN: rm -rf %t && mkdir -p %t/k0 %t/k2
// RUN: %python %S/../reference.py eval %t/k0 "((x[0] + x[0]) * s[0]).astype(np.float32)" x=randn:float32:3x50 s=randn:float32:1
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/k0/x.npy --arg @%t/k0/s.npy --arg f32:50=zeros --arg index=0 --check 2=%t/k0/ref.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/k2 "((x[2] + x[0]) * s[0]).astype(np.float32)" x=randn:float32:3x50 s=randn:float32:1
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/k2/x.npy --arg @%t/k2/s.npy --arg f32:50=zeros --arg index=2 --check 2=%t/k2/ref.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s
// CHECK: check arg #2 against {{.*}}ref.npy: ok

func.func @uniform(%X: memref<3x50xf32>, %S: memref<1xf32>, %Y: memref<50xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%b) in (1) threads(64) {
    %f = tile.fragment : !tile.fragment<4x64xf32>
    %r = tile.fragment : !tile.fragment<64xf32>
    %one = tile.fragment : !tile.fragment<1xf32>
    %s = memref.load %S[%c0] : memref<1xf32>
    tile.fill %one, %s : !tile.fragment<1xf32>
    tile.copy %X[0, 0] -> %f : memref<3x50xf32>, !tile.fragment<4x64xf32>
    tile.parallel (%i) in (64) {
      %v = tile.load %f[%k, %i] : !tile.fragment<4x64xf32>
      %z = arith.constant 0 : index
      %w = tile.load %f[%z, %i] : !tile.fragment<4x64xf32>
      %t = tile.load %one[%z] : !tile.fragment<1xf32>
      %a = arith.addf %v, %w : f32
      %m = arith.mulf %a, %t : f32
      tile.store %m, %r[%i] : !tile.fragment<64xf32>
    }
    tile.copy %r -> %Y[0] : !tile.fragment<64xf32>, memref<50xf32>
  }
  return
}
