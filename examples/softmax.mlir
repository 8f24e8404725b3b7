// Row softmax of an M x N f32 tensor, N <= 1024: each block takes 4 rows
// whole. Columns past N read -inf (the pad value), so they contribute
// exp(-inf) = 0 to the row sum; rows past M are never written.
func.func @softmax(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %grid = arith.ceildivui %m, %c4 : index
  tile.kernel grid(%bx) in (%grid) threads(128) {
    %s = tile.fragment : !tile.fragment<4x1024xf32>
    %row_max = tile.fragment : !tile.fragment<4xf32>
    %row_sum = tile.fragment : !tile.fragment<4xf32>
    %r0 = arith.muli %bx, %c4 : index
    tile.copy %X[%r0, 0] -> %s {pad = 0xFF800000 : f32} : memref<?x?xf32>, !tile.fragment<4x1024xf32>
    tile.reduce max %s -> %row_max dim 1 : !tile.fragment<4x1024xf32>, !tile.fragment<4xf32>
    tile.parallel (%i, %j) in (4, 1024) {
      %x = tile.load %s[%i, %j] : !tile.fragment<4x1024xf32>
      %mx = tile.load %row_max[%i] : !tile.fragment<4xf32>
      %d = arith.subf %x, %mx : f32
      %e = math.exp %d : f32
      tile.store %e, %s[%i, %j] : !tile.fragment<4x1024xf32>
    }
    tile.reduce sum %s -> %row_sum dim 1 : !tile.fragment<4x1024xf32>, !tile.fragment<4xf32>
    tile.parallel (%i, %j) in (4, 1024) {
      %e = tile.load %s[%i, %j] : !tile.fragment<4x1024xf32>
      %sum = tile.load %row_sum[%i] : !tile.fragment<4xf32>
      %y = arith.divf %e, %sum : f32
      tile.store %y, %s[%i, %j] : !tile.fragment<4x1024xf32>
    }
    tile.copy %s -> %Y[%r0, 0] : !tile.fragment<4x1024xf32>, memref<?x?xf32>
  }
  return
}
