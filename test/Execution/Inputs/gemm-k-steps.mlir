// C (f32, 200 x 136) = A[32:]^T B[:, 32:]^T with A stored K x M (288 x 200)
// and B stored N x K (136 x 288): a GEMM in 32-wide K steps over k = 1..8,
// its tiles (64 x 64) no divisors of M and N. test/Execution/widen-k-steps.test
// runs it as written and after tile-widen-k-steps (four 64-wide steps).
func.func @gemm(%A: memref<288x200xf16>, %B: memref<136x288xf16>, %C: memref<200x136xf32>) {
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (4, 3) threads(128) {
    %As = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m = arith.muli %bx, %c64 : index
    %n = arith.muli %by, %c64 : index
    tile.pipelined %k = %c1 to %c9 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%kk, %m] -> %As : memref<288x200xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Bs : memref<136x288xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc transpose_a transpose_b : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<64x64xf32>, memref<200x136xf32>
  }
  return
}
