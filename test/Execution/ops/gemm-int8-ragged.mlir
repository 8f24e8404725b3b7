// A grid of 32 x 32 i8 x i8 -> i32 tiles with K in steps of 32, through a
// 2-stage pipeline, at sizes that are not multiples of the tile (partial
// tiles padded with zeros, edge writes dropped) and at exact ones. Exact:
// any wrong or missing element fails.
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{ref} = %python %S/../reference.py eval %t "a.astype(np.int32) @ b.astype(np.int32)"
// DEFINE: %{run} = tile-run %s --target=cpu --cache-dir=%t/cache --arg @%t/a.npy --arg @%t/b.npy --check 2=%t/ref.npy --rtol 0 --atol 0
// RUN: %{ref} a=int:int8:64x96 b=int:int8:96x64
// RUN: %{run} --arg i32:64x64=zeros | FileCheck %s
// RUN: %{ref} a=int:int8:45x71 b=int:int8:71x37
// RUN: %{run} --arg i32:45x37=zeros | FileCheck %s
// RUN: %{ref} a=int:int8:1x1 b=int:int8:1x1
// RUN: %{run} --arg i32:1x1=zeros | FileCheck %s
// CHECK: check arg #2 against {{.*}}ref.npy: ok

func.func @gemm_i8_ragged(%A: memref<?x?xi8>, %B: memref<?x?xi8>, %C: memref<?x?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  %m = memref.dim %A, %c0 : memref<?x?xi8>
  %k = memref.dim %A, %c1 : memref<?x?xi8>
  %n = memref.dim %B, %c1 : memref<?x?xi8>
  %gm = arith.ceildivui %m, %c32 : index
  %gn = arith.ceildivui %n, %c32 : index
  %nk = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %a = tile.alloc_shared : memref<32x32xi8, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x32xi8, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<32x32xi32>
    tile.fill %c, %zero : !tile.fragment<32x32xi32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c32 : index
    tile.pipelined %kb = %c0 to %nk step %c1 stages(2) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %a : memref<?x?xi8>, memref<32x32xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %b : memref<?x?xi8>, memref<32x32xi8, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %c : memref<32x32xi8, #gpu.address_space<workgroup>>, memref<32x32xi8, #gpu.address_space<workgroup>>, !tile.fragment<32x32xi32>
    }
    tile.copy %c -> %C[%m0, %n0] : !tile.fragment<32x32xi32>, memref<?x?xi32>
  }
  return
}
