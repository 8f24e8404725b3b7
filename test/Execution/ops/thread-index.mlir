// Kernels written per thread (tile.thread_id, TileLang's
// T.get_thread_binding), with the barriers tile-insert-barriers places:
// - @gemv: y = B x, a split-K GEMV as TileLang's example writes it: 64
//   threads per block of 16 rows, 4 threads per row; each sums a quarter of
//   the row's products in a register, adds it atomically into a shared
//   slot that thread tk == 0 zeroed, and thread tk == 0 stores the slot
//   (barriers between the zeroing, the atomics and the read). Rows and K
//   not multiples of the tile;
// - @reverse: each block reverses chunks of 64 elements through a shared
//   buffer, one chunk per iteration of a loop (a barrier between a
//   chunk's writes and reads, and one before the next chunk's writes);
//   the last chunk is partial;
// - @ids: out[b, t] = lane + 100 * warp + 10000 * t for a block of 96
//   threads (32-wide warps on the CPU and NVIDIA).
// RUN: rm -rf %t && mkdir -p %t/g %t/r %t/i
// RUN: %python %S/../reference.py eval %t/g "b.astype(np.float64) @ x" b=randn:float32:37x75 x=randn:float32:75
// RUN: tile-run %s --target=cpu --cache-dir=%t/cache -e gemv --arg @%t/g/b.npy --arg @%t/g/x.npy --arg f32:37=zeros --check 2=%t/g/ref.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/r "np.concatenate([np.flip(x[k:k + 64]) for k in range(0, x.size, 64)])" x=randn:float32:300
// RUN: tile-run %s --target=cpu --cache-dir=%t/cache -e reverse --arg @%t/r/x.npy --arg f32:300=zeros --check 1=%t/r/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/i "np.tile(np.arange(96) %% 32 + 100 * (np.arange(96) // 32) + 10000 * np.arange(96), (3, 1)).astype(np.int32)" dummy=ones:float32:1x1
// RUN: tile-run %s --target=cpu --cache-dir=%t/cache -e ids --arg i32:3x96=zeros --check 0=%t/i/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #{{[0-9]}} against {{.*}}ref.npy: ok

func.func @gemv(%B: memref<?x?xf32>, %X: memref<?xf32>, %Y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %B, %c0 : memref<?x?xf32>
  %k = memref.dim %B, %c1 : memref<?x?xf32>
  %blocks = arith.ceildivui %n, %c16 : index
  tile.kernel grid(%bx) in (%blocks) threads(64) {
    %slots = tile.alloc_shared : memref<16xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    %tn = arith.remui %t, %c16 : index
    %tk = arith.divui %t, %c16 : index
    %row0 = arith.muli %bx, %c16 : index
    %row = arith.addi %row0, %tn : index
    %first = arith.cmpi eq, %tk, %c0 : index
    scf.if %first {
      memref.store %zero, %slots[%tn] : memref<16xf32, #gpu.address_space<workgroup>>
    }
    %inside = arith.cmpi ult, %row, %n : index
    %sum = scf.for %kk = %tk to %k step %c4 iter_args(%acc = %zero) -> (f32) {
      %part = scf.if %inside -> (f32) {
        %b = memref.load %B[%row, %kk] : memref<?x?xf32>
        %x = memref.load %X[%kk] : memref<?xf32>
        %p = arith.mulf %b, %x : f32
        scf.yield %p : f32
      } else {
        scf.yield %zero : f32
      }
      %next = arith.addf %acc, %part : f32
      scf.yield %next : f32
    }
    %old = memref.atomic_rmw addf %sum, %slots[%tn] : (f32, memref<16xf32, #gpu.address_space<workgroup>>) -> f32
    %writer = arith.andi %first, %inside : i1
    scf.if %writer {
      %v = memref.load %slots[%tn] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %v, %Y[%row] : memref<?xf32>
    }
  }
  return
}

func.func @reverse(%X: memref<?xf32>, %Y: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %chunks = arith.ceildivui %n, %c64 : index
  tile.kernel grid(%bx) in (2) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    // Block bx reverses chunks bx, bx + 2, ...
    %c2 = arith.constant 2 : index
    scf.for %chunk = %bx to %chunks step %c2 {
      %base = arith.muli %chunk, %c64 : index
      %rest = arith.subi %n, %base : index
      %len = arith.minui %rest, %c64 : index
      %i = arith.addi %base, %t : index
      %in = arith.cmpi ult, %t, %len : index
      scf.if %in {
        %v = memref.load %X[%i] : memref<?xf32>
        memref.store %v, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      }
      // Element t of the output chunk is element len - 1 - t of the input.
      scf.if %in {
        %last = arith.subi %len, %c1 : index
        %from = arith.subi %last, %t : index
        %v = memref.load %s[%from] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %v, %Y[%i] : memref<?xf32>
      }
    }
  }
  return
}

func.func @ids(%Out: memref<3x96xi32>) {
  %c100 = arith.constant 100 : index
  %c10000 = arith.constant 10000 : index
  tile.kernel grid(%bx) in (3) threads(96) {
    %t = tile.thread_id thread : index
    %lane = tile.thread_id lane : index
    %warp = tile.thread_id warp : index
    %w = arith.muli %warp, %c100 : index
    %tt = arith.muli %t, %c10000 : index
    %a = arith.addi %lane, %w : index
    %b = arith.addi %a, %tt : index
    %v = arith.index_cast %b : index to i32
    memref.store %v, %Out[%bx, %t] : memref<3x96xi32>
  }
  return
}
