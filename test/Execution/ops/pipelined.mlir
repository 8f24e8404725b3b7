// tile.pipelined schedules: stage counts, a hand schedule, a strided loop,
// f32 tiles, a shared buffer read by a copy rather than a gemm, and a view
// made inside the loop. The GPU runs them as cp.async pipelines
// (test/Integration/ops.test), with the tolerances of its tensor cores (tf32 for f32 tiles); here the CPU checks
// the same semantics in plain f32 (exact products of f16 inputs, f32 fused
// multiply-adds), against float64 references: 1e-5 holds with room to spare
// (the largest error is below 1e-5 absolute), where f32 operands rounded
// to tf32's 10-bit mantissa or sums rounded to f16 would not pass.
// RUN: rm -rf %t && mkdir -p %t/g %t/o %t/f %t/c %t/v
// RUN: %python %S/../reference.py eval %t/g "a.astype(np.float64) @ b" a=randn:float16:100x72 b=randn:float16:72x40
// RUN: tile-run %s -e stages2 --target=cpu --no-cache --arg @%t/g/a.npy --arg @%t/g/b.npy --arg f32:100x40=zeros --check 2=%t/g/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: tile-run %s -e stages4 --target=cpu --no-cache --arg @%t/g/a.npy --arg @%t/g/b.npy --arg f32:100x40=zeros --check 2=%t/g/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: tile-run %s -e scheduled --target=cpu --no-cache --arg @%t/g/a.npy --arg @%t/g/b.npy --arg f32:100x40=zeros --check 2=%t/g/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/o "(a[:, 32:64].astype(np.float64) @ b[32:64]) + (a[:, 96:128].astype(np.float64) @ b[96:128])" a=randn:float16:64x136 b=randn:float16:136x48
// RUN: tile-run %s -e odd_blocks --target=cpu --no-cache --arg @%t/o/a.npy --arg @%t/o/b.npy --arg f32:64x48=zeros --check 2=%t/o/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/f "a.astype(np.float64) @ b" a=randn:float32:70x48 b=randn:float32:48x36
// RUN: tile-run %s -e f32 --target=cpu --no-cache --arg @%t/f/a.npy --arg @%t/f/b.npy --arg f32:70x36=zeros --check 2=%t/f/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/c "a" a=randn:float16:37x200
// RUN: tile-run %s -e copy_through --target=cpu --no-cache --arg @%t/c/a.npy --arg f16:37x200=zeros --check 1=%t/c/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/v "np.einsum('bmk,kn->mn', a.astype(np.float64), b.astype(np.float64))" a=randn:float16:2x100x72 b=randn:float16:72x40
// RUN: tile-run %s -e view_in_loop --target=cpu --no-cache --arg @%t/v/a.npy --arg @%t/v/b.npy --arg f32:100x40=zeros --check 2=%t/v/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// CHECK: check arg #{{[0-9]}} against {{.*}}ref.npy: ok

// C = A x B with 64 x 64 x 32 tiles and the given number of stages.
func.func @stages2(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %c64 : index
    %n0 = arith.muli %by, %c64 : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}

func.func @stages4(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %c64 : index
    %n0 = arith.muli %by, %c64 : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(4) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}

// Only A's copy runs ahead (stage 0); B's copy runs with the gemm.
func.func @scheduled(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %c64 : index
    %n0 = arith.muli %by, %c64 : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(3) stage [0, 0, 2, 2] {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}

// Every other K block, from block 1: a loop with a lower bound and a step.
func.func @odd_blocks(%A: memref<64x136xf16>, %B: memref<136x48xf16>, %C: memref<64x48xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x48xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x48xf32>
    tile.fill %acc, %zero : !tile.fragment<64x48xf32>
    tile.pipelined %kb = %c1 to %c4 step %c2 stages(3) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[0, %k0] -> %As : memref<64x136xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Bs : memref<136x48xf16>, memref<32x48xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x48xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x48xf32>
    }
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x48xf32>, memref<64x48xf32>
  }
  return
}

// f32 tiles: 4-element chunks (tf32 tensor cores on the GPU).
func.func @f32(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf32>
  %n = memref.dim %B, %c1 : memref<?x?xf32>
  %gm = arith.ceildivui %m, %c32 : index
  %gn = arith.ceildivui %n, %c32 : index
  %nk = arith.ceildivui %k, %c16 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(64) {
    %As = tile.alloc_shared : memref<32x16xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x32xf32, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<32x32xf32>
    tile.fill %acc, %zero : !tile.fragment<32x32xf32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c32 : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(3) {
      %k0 = arith.muli %kb, %c16 : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf32>, memref<32x16xf32, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf32>, memref<16x32xf32, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<32x16xf32, #gpu.address_space<workgroup>>, memref<16x32xf32, #gpu.address_space<workgroup>>, !tile.fragment<32x32xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<32x32xf32>, memref<?x?xf32>
  }
  return
}

// Tiles pass through a pipelined shared buffer to global memory: the
// consumer is a copy, and rows and columns run past the tensor's edge.
func.func @copy_through(%A: memref<?x?xf16>, %Out: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %n = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c16 : index
  %nb = arith.ceildivui %n, %c64 : index
  tile.kernel grid(%bx) in (%gm) threads(64) {
    %S = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %m0 = arith.muli %bx, %c16 : index
    tile.pipelined %j = %c0 to %nb step %c1 stages(3) {
      %n0 = arith.muli %j, %c64 : index
      tile.copy %A[%m0, %n0] -> %S : memref<?x?xf16>, memref<16x64xf16, #gpu.address_space<workgroup>>
      tile.copy %S -> %Out[%m0, %n0] : memref<16x64xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
    }
  }
  return
}

// C = sum over b of A[b] x B: the loop walks every batch's K steps and
// slices A's batch inside the loop body, so that copy runs in order while
// the copy of B is pipelined.
func.func @view_in_loop(%A: memref<?x?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %batch = memref.dim %A, %c0 : memref<?x?x?xf16>
  %m = memref.dim %A, %c1 : memref<?x?x?xf16>
  %k = memref.dim %A, %c2 : memref<?x?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c64 : index
  %gn = arith.ceildivui %n, %c64 : index
  %nk = arith.ceildivui %k, %c32 : index
  %steps = arith.muli %nk, %batch : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %c64 : index
    %n0 = arith.muli %by, %c64 : index
    tile.pipelined %s = %c0 to %steps step %c1 stages(3) {
      %b = arith.divui %s, %nk : index
      %kb = arith.remui %s, %nk : index
      %k0 = arith.muli %kb, %c32 : index
      %Ab = memref.subview %A[%b, 0, 0] [1, %m, %k] [1, 1, 1] : memref<?x?x?xf16> to memref<?x?xf16, strided<[?, 1], offset: ?>>
      tile.copy %Ab[%m0, %k0] -> %As : memref<?x?xf16, strided<[?, 1], offset: ?>>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}
