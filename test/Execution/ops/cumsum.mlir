// Inclusive prefix sums, forward and reverse, in place and not, on a
// fragment and on shared memory.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "np.concatenate([np.cumsum(x, axis=1), np.flip(np.cumsum(np.flip(x, 0), axis=0), 0)])" x=randn:float32:6x10
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/x.npy --arg f32:12x10=zeros --check 1=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @cumsum(%X: memref<6x10xf32>, %Y: memref<12x10xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<6x10xf32>
    %s = tile.alloc_shared : memref<6x10xf32, #gpu.address_space<workgroup>>
    %t = tile.alloc_shared : memref<6x10xf32, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %f : memref<6x10xf32>, !tile.fragment<6x10xf32>
    tile.cumsum %f -> %f dim 1 : !tile.fragment<6x10xf32>, !tile.fragment<6x10xf32>
    tile.copy %f -> %Y[0, 0] : !tile.fragment<6x10xf32>, memref<12x10xf32>
    tile.copy %X[0, 0] -> %s : memref<6x10xf32>, memref<6x10xf32, #gpu.address_space<workgroup>>
    tile.cumsum %s -> %t dim 0 reverse : memref<6x10xf32, #gpu.address_space<workgroup>>, memref<6x10xf32, #gpu.address_space<workgroup>>
    tile.copy %t -> %Y[6, 0] : memref<6x10xf32, #gpu.address_space<workgroup>>, memref<12x10xf32>
  }
  return
}
