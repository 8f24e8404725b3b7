// FNUZ fp8 gemms on the host (tile-expand-float8 converts the operands):
// f8E4M3FNUZ x f8E5M2FNUZ^T and f8E4M3FNUZ x f8E4M3FNUZ^T -> f32 over a
// grid of 32 x 32 tiles with K in steps of 32, at exact and ragged sizes.
// The operands are random codes (magnitudes 0 or 1/8 .. 8) given to
// tile-run as their decoded values (float8.py), which the FNUZ types hold
// exactly; for K <= 64 the f32 sums are exact, so the result must equal
// the f64 product of the decoded values (a wrong exponent bias, sign or
// subnormal/zero decoding changes it).
//
// RUN: rm -rf %t && mkdir -p %t/a %t/b %t/c
// DEFINE: %{run} = tile-run %s --target=cpu --cache-dir=%t/cache --rtol 0 --atol 0
// RUN: %python %S/../float8.py gemm %t/a 64 64 64 e4m3fnuz e5m2fnuz
// RUN: %{run} -e gemm_fp8_bf8 --arg f8E4M3FNUZ:64x64=@%t/a/a.npy --arg f8E5M2FNUZ:64x64=@%t/a/b.npy --arg f32:64x64=zeros --check 2=%t/a/ref.npy | FileCheck %s
// RUN: %python %S/../float8.py gemm %t/b 45 37 61 e4m3fnuz e5m2fnuz
// RUN: %{run} -e gemm_fp8_bf8 --arg f8E4M3FNUZ:45x61=@%t/b/a.npy --arg f8E5M2FNUZ:37x61=@%t/b/b.npy --arg f32:45x37=zeros --check 2=%t/b/ref.npy | FileCheck %s
// RUN: %python %S/../float8.py gemm %t/c 50 70 39 e4m3fnuz e4m3fnuz
// RUN: %{run} -e gemm_fp8_fp8 --arg f8E4M3FNUZ:50x39=@%t/c/a.npy --arg f8E4M3FNUZ:70x39=@%t/c/b.npy --arg f32:50x70=zeros --check 2=%t/c/ref.npy | FileCheck %s
// CHECK: check arg #2 against {{.*}}ref.npy: ok

func.func @gemm_fp8_bf8(%A: memref<?x?xf8E4M3FNUZ>, %B: memref<?x?xf8E5M2FNUZ>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf8E4M3FNUZ>
  %k = memref.dim %A, %c1 : memref<?x?xf8E4M3FNUZ>
  %n = memref.dim %B, %c0 : memref<?x?xf8E5M2FNUZ>
  %gm = arith.ceildivui %m, %c32 : index
  %gn = arith.ceildivui %n, %c32 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %a = tile.alloc_shared : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<32x32xf32>
    tile.fill %c, %zero : !tile.fragment<32x32xf32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c32 : index
    scf.for %kb = %c0 to %nk step %c1 {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %a : memref<?x?xf8E4M3FNUZ>, memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %b : memref<?x?xf8E5M2FNUZ>, memref<32x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %c transpose_b : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>, !tile.fragment<32x32xf32>
    }
    tile.copy %c -> %C[%m0, %n0] : !tile.fragment<32x32xf32>, memref<?x?xf32>
  }
  return
}

func.func @gemm_fp8_fp8(%A: memref<?x?xf8E4M3FNUZ>, %B: memref<?x?xf8E4M3FNUZ>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf8E4M3FNUZ>
  %k = memref.dim %A, %c1 : memref<?x?xf8E4M3FNUZ>
  %n = memref.dim %B, %c0 : memref<?x?xf8E4M3FNUZ>
  %gm = arith.ceildivui %m, %c32 : index
  %gn = arith.ceildivui %n, %c32 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %a = tile.alloc_shared : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<32x32xf32>
    tile.fill %c, %zero : !tile.fragment<32x32xf32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c32 : index
    scf.for %kb = %c0 to %nk step %c1 {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %a : memref<?x?xf8E4M3FNUZ>, memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %b : memref<?x?xf8E4M3FNUZ>, memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %c transpose_b : memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<32x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, !tile.fragment<32x32xf32>
    }
    tile.copy %c -> %C[%m0, %n0] : !tile.fragment<32x32xf32>, memref<?x?xf32>
  }
  return
}
