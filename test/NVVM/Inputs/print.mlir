// A GEMM with prints: the block's K step inside the pipelined loop, the
// shared operand tile at the last step, and the accumulator fragment (its
// layout the instruction's) after the loop. test/NVVM/print.test and
// test/ROCDL/print.test compile it.
func.func @gemm_print(%A: memref<64x64xf16>, %B: memref<64x64xf16>,
                      %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %k = %c0 to %c2 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[0, %kk] -> %As : memref<64x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, 0] -> %Bs : memref<64x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.print "k" %k : index
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.print "buffer<A_shared, float16>" %As name "A_shared" thread 32 : memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.print "buffer<C_local, float32>" %acc name "C_local" : !tile.fragment<64x64xf32>
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}
