// Gemms that take Hopper's warpgroup MMA on sm_90a (mma.sync or FMA
// elsewhere): every operand major-ness for 16-bit types, one and two
// warpgroups along M and N, 128/64/32-byte swizzled operands, tf32 with K-major operands,
// a chained pair whose second A operand comes from registers (the
// attention idiom), and f16 accumulation (integers, exact in f16). Sizes are not multiples of the tiles. The CPU runs check
// the programs; test/Integration/ops.test runs the same cases on the GPU.
// RUN: rm -rf %t && mkdir -p %t && cd %t && mkdir -p nn_f16_128 nt_f16 tn_f16 tt_bf16 nn_f16_two_groups_rows nn_f16_two_groups_cols nn_f16_swizzle64 nn_f16_swizzle32 nt_f32_tf32 chained nn_f16_acc16
// RUN: %python %S/../reference.py eval %t/nn_f16_128 "a.astype(np.float64) @ b" a=randn:float16:200x136 b=randn:float16:136x300
// RUN: tile-run %s -e nn_f16_128 --target=cpu --no-cache --arg @%t/nn_f16_128/a.npy --arg @%t/nn_f16_128/b.npy --arg f32:200x300=zeros --check 2=%t/nn_f16_128/ref.npy --rtol 1e-3 --atol 1e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/nt_f16 "a.astype(np.float64) @ b.T" a=randn:float16:200x136 b=randn:float16:300x136
// RUN: tile-run %s -e nt_f16 --target=cpu --no-cache --arg @%t/nt_f16/a.npy --arg @%t/nt_f16/b.npy --arg f32:200x300=zeros --check 2=%t/nt_f16/ref.npy --rtol 1e-3 --atol 1e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/tn_f16 "a.T.astype(np.float64) @ b" a=randn:float16:136x200 b=randn:float16:136x300
// RUN: tile-run %s -e tn_f16 --target=cpu --no-cache --arg @%t/tn_f16/a.npy --arg @%t/tn_f16/b.npy --arg f32:200x300=zeros --check 2=%t/tn_f16/ref.npy --rtol 1e-3 --atol 1e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/tt_bf16 "a.T.astype(np.float64) @ b.T" a=int:float32:136x200 b=int:float32:300x136
// RUN: tile-run %s -e tt_bf16 --target=cpu --no-cache --arg bf16:136x200=@%t/tt_bf16/a.npy --arg bf16:300x136=@%t/tt_bf16/b.npy --arg f32:200x300=zeros --check 2=%t/tt_bf16/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/nn_f16_two_groups_rows "a.astype(np.float64) @ b" a=randn:float16:200x136 b=randn:float16:136x300
// RUN: tile-run %s -e nn_f16_two_groups_rows --target=cpu --no-cache --arg @%t/nn_f16_two_groups_rows/a.npy --arg @%t/nn_f16_two_groups_rows/b.npy --arg f32:200x300=zeros --check 2=%t/nn_f16_two_groups_rows/ref.npy --rtol 1e-3 --atol 1e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/nn_f16_two_groups_cols "a.astype(np.float64) @ b" a=randn:float16:200x136 b=randn:float16:136x300
// RUN: tile-run %s -e nn_f16_two_groups_cols --target=cpu --no-cache --arg @%t/nn_f16_two_groups_cols/a.npy --arg @%t/nn_f16_two_groups_cols/b.npy --arg f32:200x300=zeros --check 2=%t/nn_f16_two_groups_cols/ref.npy --rtol 1e-3 --atol 1e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/nn_f16_swizzle64 "a.astype(np.float64) @ b" a=randn:float16:200x136 b=randn:float16:136x300
// RUN: tile-run %s -e nn_f16_swizzle64 --target=cpu --no-cache --arg @%t/nn_f16_swizzle64/a.npy --arg @%t/nn_f16_swizzle64/b.npy --arg f32:200x300=zeros --check 2=%t/nn_f16_swizzle64/ref.npy --rtol 1e-3 --atol 1e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/nn_f16_swizzle32 "a.astype(np.float64) @ b" a=randn:float16:200x136 b=randn:float16:136x300
// RUN: tile-run %s -e nn_f16_swizzle32 --target=cpu --no-cache --arg @%t/nn_f16_swizzle32/a.npy --arg @%t/nn_f16_swizzle32/b.npy --arg f32:200x300=zeros --check 2=%t/nn_f16_swizzle32/ref.npy --rtol 1e-3 --atol 1e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/nt_f32_tf32 "a.astype(np.float64) @ b.T" a=randn:float32:200x136 b=randn:float32:300x136
// RUN: tile-run %s -e nt_f32_tf32 --target=cpu --no-cache --arg @%t/nt_f32_tf32/a.npy --arg @%t/nt_f32_tf32/b.npy --arg f32:200x300=zeros --check 2=%t/nt_f32_tf32/ref.npy --rtol 2e-2 --atol 5e-2 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/chained "(q.astype(np.float64) @ k.T.astype(np.float64)).astype(np.float16).astype(np.float64) @ v" q=randn:float16:64x64 k=randn:float16:64x64 v=randn:float16:64x64
// RUN: tile-run %s -e chained --target=cpu --no-cache --arg @%t/chained/q.npy --arg @%t/chained/k.npy --arg @%t/chained/v.npy --arg f32:64x64=zeros --check 3=%t/chained/ref.npy --rtol 1e-2 --atol 5e-1 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/nn_f16_acc16 "a.astype(np.float64) @ b" a=int:float16:200x136 b=int:float16:136x300
// RUN: tile-run %s -e nn_f16_acc16 --target=cpu --no-cache --arg @%t/nn_f16_acc16/a.npy --arg @%t/nn_f16_acc16/b.npy --arg f16:200x300=zeros --check 2=%t/nn_f16_acc16/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #{{[23]}} against {{.*}}ref.npy: ok

func.func @nn_f16_128(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 128 : index
  %bn = arith.constant 128 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x128xf32>, memref<?x?xf32>
  }
  return
}

func.func @nt_f16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 128 : index
  %bn = arith.constant 128 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %Bs : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc transpose_b : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x128xf32>, memref<?x?xf32>
  }
  return
}

func.func @tn_f16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 128 : index
  %bn = arith.constant 128 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c0 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%k0, %m0] -> %As : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc transpose_a : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x128xf32>, memref<?x?xf32>
  }
  return
}

func.func @tt_bf16(%A: memref<?x?xbf16>, %B: memref<?x?xbf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %bn = arith.constant 128 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c0 : memref<?x?xbf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x64xbf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x64xbf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x128xf32>
    tile.fill %acc, %zero : !tile.fragment<64x128xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%k0, %m0] -> %As : memref<?x?xbf16>, memref<64x64xbf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %Bs : memref<?x?xbf16>, memref<128x64xbf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc transpose_a transpose_b : memref<64x64xbf16, #gpu.address_space<workgroup>>, memref<128x64xbf16, #gpu.address_space<workgroup>>, !tile.fragment<64x128xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x128xf32>, memref<?x?xf32>
  }
  return
}

func.func @nn_f16_two_groups_rows(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 128 : index
  %bn = arith.constant 128 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc policy full_row : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x128xf32>, memref<?x?xf32>
  }
  return
}

func.func @nn_f16_two_groups_cols(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %bn = arith.constant 256 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(256) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x256xf32>
    tile.fill %acc, %zero : !tile.fragment<64x256xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc policy full_col : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x256xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x256xf32>, memref<?x?xf32>
  }
  return
}

func.func @nn_f16_swizzle64(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %bn = arith.constant 64 : index
  %bk = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(3) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}

func.func @nn_f16_swizzle32(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %bn = arith.constant 32 : index
  %bk = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x32xf32>
    tile.fill %acc, %zero : !tile.fragment<64x32xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<16x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x16xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x32xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x32xf32>, memref<?x?xf32>
  }
  return
}

func.func @nt_f32_tf32(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %bn = arith.constant 64 : index
  %bk = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %C, %c0 : memref<?x?xf32>
  %n = memref.dim %C, %c1 : memref<?x?xf32>
  %k = memref.dim %A, %c1 : memref<?x?xf32>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xf32, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf32>, memref<64x32xf32, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %Bs : memref<?x?xf32>, memref<64x32xf32, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc transpose_b : memref<64x32xf32, #gpu.address_space<workgroup>>, memref<64x32xf32, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}

func.func @chained(%Q: memref<64x64xf16>, %K: memref<64x64xf16>, %V: memref<64x64xf16>, %O: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %seven = arith.constant 7.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<64x64xf32>
    %P = tile.fragment : !tile.fragment<64x64xf16>
    %O_acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.copy %Q[0, 0] -> %Qs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %K[0, 0] -> %Ks : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %V[0, 0] -> %Vs : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    // clear_accum: what S held before does not count.
    tile.fill %S, %seven : !tile.fragment<64x64xf32>
    tile.gemm %Qs, %Ks, %S transpose_b clear_accum policy full_row : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.copy %S -> %P : !tile.fragment<64x64xf32>, !tile.fragment<64x64xf16>
    tile.fill %O_acc, %zero : !tile.fragment<64x64xf32>
    tile.gemm %P, %Vs, %O_acc policy full_row : !tile.fragment<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.copy %O_acc -> %O[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// f16 x f16 into an f16 accumulator: wgmma's .f16 form (two elements per
// register) on sm_90a.
func.func @nn_f16_acc16(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 128 : index
  %bn = arith.constant 128 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f16
  %m = memref.dim %C, %c0 : memref<?x?xf16>
  %n = memref.dim %C, %c1 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %bm : index
  %gn = arith.ceildivui %n, %bn : index
  %nk = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf16>
    tile.fill %acc, %zero : !tile.fragment<128x128xf16>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf16>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x128xf16>, memref<?x?xf16>
  }
  return
}
