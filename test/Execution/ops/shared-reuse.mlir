// Shared buffers with disjoint lives share memory on the GPU (a is dead
// once b is written; c is written while b is still read, so it may not
// share b's memory): the data must survive the reuse.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "np.concatenate([x, 2 * x])" x=randn:float32:64x48
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/x.npy --arg f32:128x48=zeros --check 1=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @reuse(%X: memref<64x48xf32>, %Y: memref<128x48xf32>) {
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x48xf32, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<64x48xf32, #gpu.address_space<workgroup>>
    %c = tile.alloc_shared : memref<64x48xf32, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x48xf32>
    tile.copy %X[0, 0] -> %a : memref<64x48xf32>, memref<64x48xf32, #gpu.address_space<workgroup>>
    tile.copy %a -> %f : memref<64x48xf32, #gpu.address_space<workgroup>>, !tile.fragment<64x48xf32>
    tile.copy %f -> %b : !tile.fragment<64x48xf32>, memref<64x48xf32, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (64, 48) {
      %v = tile.load %b[%i, %j] : memref<64x48xf32, #gpu.address_space<workgroup>>
      %w = arith.mulf %v, %two : f32
      tile.store %w, %c[%i, %j] : memref<64x48xf32, #gpu.address_space<workgroup>>
    }
    tile.copy %b -> %Y[0, 0] : memref<64x48xf32, #gpu.address_space<workgroup>>, memref<128x48xf32>
    tile.copy %c -> %Y[64, 0] : memref<64x48xf32, #gpu.address_space<workgroup>>, memref<128x48xf32>
  }
  return
}
