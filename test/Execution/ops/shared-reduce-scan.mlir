// Reductions and scans of shared buffers into shared buffers: rows (and
// outputs) dealt round-robin to the block's threads, more of them than
// threads.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "np.concatenate([np.cumsum(x, axis=1), x.sum(axis=1, keepdims=True) + 1, np.zeros((x.shape[0], 9), np.float32)], axis=1)" x=randn:float32:200x24
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/x.npy --arg f32:200x34=zeros --check 1=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @reduce_scan(%X: memref<200x24xf32>, %Y: memref<200x34xf32>) {
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.alloc_shared : memref<200x24xf32, #gpu.address_space<workgroup>>
    %scan = tile.alloc_shared : memref<200x24xf32, #gpu.address_space<workgroup>>
    %sums = tile.alloc_shared : memref<200xf32, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %x : memref<200x24xf32>, memref<200x24xf32, #gpu.address_space<workgroup>>
    tile.cumsum %x -> %scan dim 1 : memref<200x24xf32, #gpu.address_space<workgroup>>, memref<200x24xf32, #gpu.address_space<workgroup>>
    tile.fill %sums, %one : memref<200xf32, #gpu.address_space<workgroup>>
    tile.reduce sum %x -> %sums dim 1 {clear = false} : memref<200x24xf32, #gpu.address_space<workgroup>>, memref<200xf32, #gpu.address_space<workgroup>>
    tile.copy %scan -> %Y[0, 0] : memref<200x24xf32, #gpu.address_space<workgroup>>, memref<200x34xf32>
    %col = memref.subview %Y[0, 24] [200, 1] [1, 1] : memref<200x34xf32> to memref<200xf32, strided<[34], offset: 24>>
    tile.copy %sums -> %col[0] : memref<200xf32, #gpu.address_space<workgroup>>, memref<200xf32, strided<[34], offset: 24>>
  }
  return
}
