// Copy a 2-d f16 tensor of any size through shared memory, one 64 x 128
// tile per block.
func.func @copy(%X: memref<?x?xf16>, %Y: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %m = memref.dim %X, %c0 : memref<?x?xf16>
  %n = memref.dim %X, %c1 : memref<?x?xf16>
  %grid_m = arith.ceildivui %m, %c64 : index
  %grid_n = arith.ceildivui %n, %c128 : index
  tile.kernel grid(%bx, %by) in (%grid_m, %grid_n) threads(128) {
    %tile = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %m0 = arith.muli %bx, %c64 : index
    %n0 = arith.muli %by, %c128 : index
    tile.copy %X[%m0, %n0] -> %tile : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.copy %tile -> %Y[%m0, %n0] : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
  }
  return
}
