// An f8E4M3FNUZ x f8E5M2FNUZ -> f32 GEMM (gfx942's fp8 x bf8) for the MFMA
// checks of test/ROCDL/examples.test, which also makes the fp8 x fp8 and
// bf8 x fp8 forms of it with sed. B is stored N x K (transpose_b), so that
// both operands have K as their stored inner dim.
func.func @gemm_fp8_fnuz(%A: memref<256x128xf8E4M3FNUZ>, %B: memref<256x128xf8E5M2FNUZ>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(256) {
    %As = tile.alloc_shared : memref<128x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m0 = arith.muli %bx, %c128 : index
    %n0 = arith.muli %by, %c128 : index
    tile.pipelined %kb = %c0 to %c4 step %c1 stages(2) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %As : memref<256x128xf8E4M3FNUZ>, memref<128x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %Bs : memref<256x128xf8E5M2FNUZ>, memref<128x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc transpose_b : memref<128x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<128x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x128xf32>, memref<256x256xf32>
  }
  return
}
