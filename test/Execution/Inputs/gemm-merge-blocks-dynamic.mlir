// C (f16, M x 200) = A (f16, M x 64) B (f16, 64 x 200) for an M known at
// run time: a 64 x 64 tile per block over a 4 x ceil(M / 64) grid, each
// block's first row read from a table on the device (64 * Tiles[by], as a
// grouped GEMM's tile plan), the elements past C not stored (a
// tile.parallel with an scf.if). test/Execution/merge-blocks.test runs it
// as written and after tile-merge-blocks, whose merged copy runs where the
// grid is big enough.
func.func @dynamic_rows(%A: memref<?x64xf16>, %B: memref<64x200xf16>, %Tiles: memref<8xi32>, %C: memref<?x200xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %c200 = arith.constant 200 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x64xf16>
  %m63 = arith.addi %m, %c63 : index
  %tiles = arith.divui %m63, %c64 : index
  tile.kernel grid(%bx, %by) in (4, %tiles) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %t = memref.load %Tiles[%by] : memref<8xi32>
    %ti = arith.index_cast %t : i32 to index
    %row = arith.muli %ti, %c64 : index
    tile.pipelined %k = %c0 to %c2 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%row, %kk] -> %As : memref<?x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      %n = arith.muli %bx, %c64 : index
      tile.copy %B[%kk, %n] -> %Bs : memref<64x200xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %r = arith.addi %row, %i : index
      %n = arith.muli %bx, %c64 : index
      %col = arith.addi %n, %j : index
      %in_rows = arith.cmpi slt, %r, %m : index
      %in_cols = arith.cmpi slt, %col, %c200 : index
      %inside = arith.andi %in_rows, %in_cols : i1
      scf.if %inside {
        %v = tile.load %acc[%i, %j] : !tile.fragment<64x64xf32>
        %h = arith.truncf %v : f32 to f16
        tile.store %h, %C[%r, %col] : memref<?x200xf16>
      }
    }
  }
  return
}
