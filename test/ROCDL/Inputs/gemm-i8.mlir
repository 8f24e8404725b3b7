// An i8 x i8 -> i32 GEMM for the MFMA checks of test/ROCDL/examples.test.
func.func @gemm_i8(%A: memref<256x128xi8>, %B: memref<128x256xi8>, %C: memref<256x256xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  tile.kernel grid(%bx, %by) in (2, 2) threads(256) {
    %As = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xi8, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xi32>
    tile.fill %acc, %zero : !tile.fragment<128x128xi32>
    %m0 = arith.muli %bx, %c32 : index
    tile.pipelined %kb = %c0 to %c4 step %c1 stages(2) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[0, %k0] -> %As : memref<256x128xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Bs : memref<128x256xi8>, memref<32x128xi8, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xi8, #gpu.address_space<workgroup>>, memref<32x128xi8, #gpu.address_space<workgroup>>, !tile.fragment<128x128xi32>
    }
    tile.copy %acc -> %C[0, 0] : !tile.fragment<128x128xi32>, memref<256x256xi32>
  }
  return
}
