// Warp specialization written by hand (TileLang's T.ws): in each block of
// 64 threads, threads 32-63 copy A's and B's tiles into shared memory and
// threads 0-31 multiply them, handing each K step over with two barriers
// (data ready, compute done). The producers wait for the consumers to be
// done with the previous step (parity k + 1: a new barrier passes parity
// 1 at once), copy, and arrive; the consumers wait for the step's data,
// multiply and arrive. M, N and K are not multiples of the 16 x 16 x 16
// tiles.
// RUN: rm -rf %t && mkdir -p %t/g
// RUN: %python %S/../reference.py eval %t/g "a.astype(np.float64) @ b" a=randn:float32:37x75 b=randn:float32:75x45
// RUN: tile-run %s --target=cpu --cache-dir=%t/cache -e ws --arg @%t/g/a.npy --arg @%t/g/b.npy --arg f32:37x45=zeros --check 2=%t/g/ref.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// CHECK: check arg #2 against {{.*}}ref.npy: ok

func.func @ws(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c15 = arith.constant 15 : index
  %mm = memref.dim %A, %c0 : memref<?x?xf32>
  %kd = memref.dim %A, %c1 : memref<?x?xf32>
  %nn = memref.dim %B, %c1 : memref<?x?xf32>
  %gx0 = arith.addi %nn, %c15 : index
  %gx = arith.divui %gx0, %c16 : index
  %gy0 = arith.addi %mm, %c15 : index
  %gy = arith.divui %gy0, %c16 : index
  %nk0 = arith.addi %kd, %c15 : index
  %nk = arith.divui %nk0, %c16 : index
  tile.kernel grid(%bx, %by) in (%gx, %gy) threads(64) {
    %As = tile.alloc_shared : memref<16x16xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x16xf32, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<16x16xf32>
    %bars = tile.alloc_barrier [32, 32] : !tile.barrier<2>
    %m = arith.muli %by, %c16 : index
    %n = arith.muli %bx, %c16 : index
    tile.thread_range 0 to 32 {
      %zero = arith.constant 0.0 : f32
      tile.fill %acc, %zero : !tile.fragment<16x16xf32>
    }
    scf.for %k = %c0 to %nk step %c1 {
      %kk = arith.muli %k, %c16 : index
      %next = arith.addi %k, %c1 : index
      tile.thread_range 32 to 64 {
        tile.barrier_wait %bars[%c1], %next : !tile.barrier<2>
        tile.copy %A[%m, %kk] -> %As barrier(%bars[%c0]) : memref<?x?xf32>, memref<16x16xf32, #gpu.address_space<workgroup>>, !tile.barrier<2>
        tile.copy %B[%kk, %n] -> %Bs barrier(%bars[%c0]) : memref<?x?xf32>, memref<16x16xf32, #gpu.address_space<workgroup>>, !tile.barrier<2>
        tile.barrier_arrive %bars[%c0] : !tile.barrier<2>
      }
      tile.thread_range 0 to 32 {
        tile.barrier_wait %bars[%c0], %k : !tile.barrier<2>
        tile.gemm %As, %Bs, %acc : memref<16x16xf32, #gpu.address_space<workgroup>>, memref<16x16xf32, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
        tile.barrier_arrive %bars[%c1] : !tile.barrier<2>
      }
    }
    tile.thread_range 0 to 32 {
      tile.copy %acc -> %C[%m, %n] : !tile.fragment<16x16xf32>, memref<?x?xf32>
    }
  }
  return
}
