// Every reduce kind along both dims of a 12 x 20 tile, plus accumulation
// (clear = false) on top of a previous result. Output row k of %R holds
// kind k along dim 1 (12 values) and kind k along dim 0 (20 values).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "np.stack([np.concatenate([f(x, axis=1), f(x, axis=0)]) for f in [np.sum, np.max, np.min, lambda v, axis: np.abs(v).max(axis=axis), lambda v, axis: np.abs(v).sum(axis=axis), lambda v, axis: 2 * v.sum(axis=axis)]])" x=randn:float32:12x20
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/x.npy --arg f32:6x32=zeros --check 1=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @reduce(%X: memref<12x20xf32>, %R: memref<6x32xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.fragment : !tile.fragment<12x20xf32>
    %rows = tile.fragment : !tile.fragment<12xf32>
    %cols = tile.fragment : !tile.fragment<20xf32>
    tile.copy %X[0, 0] -> %x : memref<12x20xf32>, !tile.fragment<12x20xf32>
    %r0 = memref.subview %R[0, 0] [1, 32] [1, 1] : memref<6x32xf32> to memref<32xf32, strided<[1], offset: 0>>
    %r1 = memref.subview %R[1, 0] [1, 32] [1, 1] : memref<6x32xf32> to memref<32xf32, strided<[1], offset: 32>>
    %r2 = memref.subview %R[2, 0] [1, 32] [1, 1] : memref<6x32xf32> to memref<32xf32, strided<[1], offset: 64>>
    %r3 = memref.subview %R[3, 0] [1, 32] [1, 1] : memref<6x32xf32> to memref<32xf32, strided<[1], offset: 96>>
    %r4 = memref.subview %R[4, 0] [1, 32] [1, 1] : memref<6x32xf32> to memref<32xf32, strided<[1], offset: 128>>
    %r5 = memref.subview %R[5, 0] [1, 32] [1, 1] : memref<6x32xf32> to memref<32xf32, strided<[1], offset: 160>>
    tile.reduce sum %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce sum %x -> %cols dim 0 : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.copy %rows -> %r0[0] : !tile.fragment<12xf32>, memref<32xf32, strided<[1], offset: 0>>
    tile.copy %cols -> %r0[12] : !tile.fragment<20xf32>, memref<32xf32, strided<[1], offset: 0>>
    tile.reduce max %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce max %x -> %cols dim 0 : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.copy %rows -> %r1[0] : !tile.fragment<12xf32>, memref<32xf32, strided<[1], offset: 32>>
    tile.copy %cols -> %r1[12] : !tile.fragment<20xf32>, memref<32xf32, strided<[1], offset: 32>>
    tile.reduce min %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce min %x -> %cols dim 0 : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.copy %rows -> %r2[0] : !tile.fragment<12xf32>, memref<32xf32, strided<[1], offset: 64>>
    tile.copy %cols -> %r2[12] : !tile.fragment<20xf32>, memref<32xf32, strided<[1], offset: 64>>
    tile.reduce absmax %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce absmax %x -> %cols dim 0 : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.copy %rows -> %r3[0] : !tile.fragment<12xf32>, memref<32xf32, strided<[1], offset: 96>>
    tile.copy %cols -> %r3[12] : !tile.fragment<20xf32>, memref<32xf32, strided<[1], offset: 96>>
    tile.reduce abssum %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce abssum %x -> %cols dim 0 : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.copy %rows -> %r4[0] : !tile.fragment<12xf32>, memref<32xf32, strided<[1], offset: 128>>
    tile.copy %cols -> %r4[12] : !tile.fragment<20xf32>, memref<32xf32, strided<[1], offset: 128>>
    tile.reduce sum %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce sum %x -> %rows dim 1 {clear = false} : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.reduce sum %x -> %cols dim 0 : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.reduce sum %x -> %cols dim 0 {clear = false} : !tile.fragment<12x20xf32>, !tile.fragment<20xf32>
    tile.copy %rows -> %r5[0] : !tile.fragment<12xf32>, memref<32xf32, strided<[1], offset: 160>>
    tile.copy %cols -> %r5[12] : !tile.fragment<20xf32>, memref<32xf32, strided<[1], offset: 160>>
  }
  return
}
