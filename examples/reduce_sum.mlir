// Row sums of an M x N f32 tensor of any size: each block owns 16 rows and
// walks their columns 256 at a time, accumulating with clear = false.
func.func @row_sum(%X: memref<?x?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %n = memref.dim %X, %c1 : memref<?x?xf32>
  %grid = arith.ceildivui %m, %c16 : index
  %steps = arith.ceildivui %n, %c256 : index
  tile.kernel grid(%bx) in (%grid) threads(128) {
    %part = tile.fragment : !tile.fragment<16x256xf32>
    %acc = tile.fragment : !tile.fragment<16xf32>
    tile.fill %acc, %zero : !tile.fragment<16xf32>
    %r0 = arith.muli %bx, %c16 : index
    scf.for %step = %c0 to %steps step %c1 {
      %c0_ = arith.muli %step, %c256 : index
      tile.copy %X[%r0, %c0_] -> %part : memref<?x?xf32>, !tile.fragment<16x256xf32>
      tile.reduce sum %part -> %acc dim 1 {clear = false} : !tile.fragment<16x256xf32>, !tile.fragment<16xf32>
    }
    tile.copy %acc -> %out[%r0] : !tile.fragment<16xf32>, memref<?xf32>
  }
  return
}
