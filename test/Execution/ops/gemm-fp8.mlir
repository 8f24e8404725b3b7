// f8E4M3FN x f8E5M2 -> f32 gemm over a grid of 32 x 32 tiles with K in
// steps of 32, at exact and ragged sizes. The inputs are f16 integers in
// [-8, 8), which both f8 types hold exactly, so the copies into the f8
// shared buffers do not round and the result is exact.
//
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{ref} = %python %S/../reference.py eval %t "a.astype(np.float64) @ b"
// DEFINE: %{run} = tile-run %s --target=cpu --cache-dir=%t/cache --arg @%t/a.npy --arg @%t/b.npy --check 2=%t/ref.npy --rtol 0 --atol 0
// RUN: %{ref} a=int:float16:64x64 b=int:float16:64x32
// RUN: %{run} --arg f32:64x32=zeros | FileCheck %s
// RUN: %{ref} a=int:float16:45x71 b=int:float16:71x37
// RUN: %{run} --arg f32:45x37=zeros | FileCheck %s
// CHECK: check arg #2 against {{.*}}ref.npy: ok

func.func @gemm_f8(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c32 : index
  %gn = arith.ceildivui %n, %c32 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %a = tile.alloc_shared : memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x32xf8E5M2, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<32x32xf32>
    tile.fill %c, %zero : !tile.fragment<32x32xf32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c32 : index
    scf.for %kb = %c0 to %nk step %c1 {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %a : memref<?x?xf16>, memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %b : memref<?x?xf16>, memref<32x32xf8E5M2, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %c : memref<32x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<32x32xf8E5M2, #gpu.address_space<workgroup>>, !tile.fragment<32x32xf32>
    }
    tile.copy %c -> %C[%m0, %n0] : !tile.fragment<32x32xf32>, memref<?x?xf32>
  }
  return
}
