// C = A + B elementwise for f32 tensors of any size: each block loads a
// 32 x 128 tile of A and B into fragments, adds them in a tile.parallel
// body, and stores the sum.
func.func @add(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %n = memref.dim %A, %c1 : memref<?x?xf32>
  %grid_m = arith.ceildivui %m, %c32 : index
  %grid_n = arith.ceildivui %n, %c128 : index
  tile.kernel grid(%bx, %by) in (%grid_m, %grid_n) threads(128) {
    %a = tile.fragment : !tile.fragment<32x128xf32>
    %b = tile.fragment : !tile.fragment<32x128xf32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c128 : index
    tile.copy %A[%m0, %n0] -> %a : memref<?x?xf32>, !tile.fragment<32x128xf32>
    tile.copy %B[%m0, %n0] -> %b : memref<?x?xf32>, !tile.fragment<32x128xf32>
    tile.parallel (%i, %j) in (32, 128) {
      %x = tile.load %a[%i, %j] : !tile.fragment<32x128xf32>
      %y = tile.load %b[%i, %j] : !tile.fragment<32x128xf32>
      %s = arith.addf %x, %y : f32
      tile.store %s, %a[%i, %j] : !tile.fragment<32x128xf32>
    }
    tile.copy %a -> %C[%m0, %n0] : !tile.fragment<32x128xf32>, memref<?x?xf32>
  }
  return
}
