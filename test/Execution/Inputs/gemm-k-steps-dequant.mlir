// C (f32, 200 x 136) = A (f16, 200 x 256) W^T with W (136 x 256) 4-bit
// weights: Q (i8, 136 x 128) holds two per byte (element 2c in the low
// nibble of byte c), unsigned with zero point 8, times a scale S (f16,
// 136 x 4) per group of 64 along K. The weights are unpacked in a
// tile.parallel each 32-wide K step (W4A16): packed bytes at j / 2, nibbles
// by j % 2, the scale at (k * 32 + j) / 64. test/Execution/widen-k-steps.test
// runs it as written and after tile-widen-k-steps (four 64-wide steps).
func.func @dequant(%A: memref<200x256xf16>, %Q: memref<136x128xi8>, %S: memref<136x4xf16>, %C: memref<200x136xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c15_i32 = arith.constant 15 : i32
  %c8_i32 = arith.constant 8 : i32
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (3, 4) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<64x16xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      %kb = arith.floordivsi %kk, %c2 : index
      tile.copy %A[%m, %kk] -> %As : memref<200x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %Q[%n, %kb] -> %Qs : memref<136x128xi8>, memref<64x16xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 32) {
        %h = arith.floordivsi %j, %c2 : index
        %byte = tile.load %Qs[%i, %h] : memref<64x16xi8, #gpu.address_space<workgroup>>
        %odd = arith.remsi %j, %c2 : index
        %bits = arith.muli %odd, %c4 : index
        %wide = arith.extsi %byte : i8 to i32
        %by32 = arith.index_cast %bits : index to i32
        %shifted = arith.shrsi %wide, %by32 : i32
        %nibble = arith.andi %shifted, %c15_i32 : i32
        %row = arith.addi %n, %i : index
        %col = arith.addi %kk, %j : index
        %group = arith.floordivsi %col, %c64 : index
        %s = tile.load %S[%row, %group] : memref<136x4xf16>
        %q = arith.subi %nibble, %c8_i32 : i32
        %f = arith.sitofp %q : i32 to f16
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Ws[%i, %j] : memref<64x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<64x64xf32>, memref<200x136xf32>
  }
  return
}
