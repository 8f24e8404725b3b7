// Every kind of tile.print (test/Execution/print.test): the message and
// scalars (every thread), a shared tile copied from a ragged edge of X (row
// 3 and column 5 are outside it: 0), a fragment computed from it (each
// element also printed in the tile.parallel body: once per iteration on
// the CPU, from thread 0), a thread-local buffer and a dynamic global
// tensor of unsigned bytes.
func.func @print_all(%X: memref<3x5xf32>, %N: memref<?xi8>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %two = arith.constant 2.0 : f32
  %h = arith.constant -1.5 : f16
  %seven = arith.constant 7 : i32
  tile.kernel grid(%bx) in (2) threads(3) {
    tile.print "hello"
    tile.print "bx" %bx : index
    tile.print "h" %h : f16
    %first = arith.cmpi eq, %bx, %c0 : index
    tile.print "first" %first : i1
    %row = arith.muli %bx, %c2 : index
    %s = tile.alloc_shared : memref<2x4xf32, #gpu.address_space<workgroup>>
    tile.copy %X[%row, 2] -> %s : memref<3x5xf32>, memref<2x4xf32, #gpu.address_space<workgroup>>
    tile.print "" %s name "X_shared" thread 1 : memref<2x4xf32, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<2x4xf32>
    tile.parallel (%i, %j) in (2, 4) {
      %v = tile.load %s[%i, %j] : memref<2x4xf32, #gpu.address_space<workgroup>>
      %w = arith.mulf %v, %two : f32
      tile.print "w" %w : f32
      tile.store %w, %f[%i, %j] : !tile.fragment<2x4xf32>
    }
    tile.print "twice" %f name "frag" : !tile.fragment<2x4xf32>
    %l = memref.alloca() : memref<2xi32>
    memref.store %seven, %l[%c0] : memref<2xi32>
    %c1 = arith.constant 1 : index
    %bx32 = arith.index_cast %bx : index to i32
    memref.store %bx32, %l[%c1] : memref<2xi32>
    tile.print "local" %l name "l" : memref<2xi32>
    tile.print "n" %N name "N" thread 2 unsigned : memref<?xi8>
  }
  return
}
