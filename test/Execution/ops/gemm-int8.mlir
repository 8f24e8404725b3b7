// i8 x i8 -> i32 gemm is exact.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "a.astype(np.int32) @ b.astype(np.int32)" a=int:int8:16x64 b=int:int8:64x8
// RUN: tile-run %s --target=cpu --no-cache --arg @%t/a.npy --arg @%t/b.npy --arg i32:16x8=zeros --check 2=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #2 against {{.*}}ref.npy: ok

func.func @gemm_i8(%A: memref<16x64xi8>, %B: memref<64x8xi8>, %C: memref<16x8xi32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.alloc_shared : memref<16x64xi8, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<64x8xi8, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x8xi32>
    tile.copy %A[0, 0] -> %a : memref<16x64xi8>, memref<16x64xi8, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %b : memref<64x8xi8>, memref<64x8xi8, #gpu.address_space<workgroup>>
    tile.gemm %a, %b, %c clear_accum : memref<16x64xi8, #gpu.address_space<workgroup>>, memref<64x8xi8, #gpu.address_space<workgroup>>, !tile.fragment<16x8xi32>
    tile.copy %c -> %C[0, 0] : !tile.fragment<16x8xi32>, memref<16x8xi32>
  }
  return
}
