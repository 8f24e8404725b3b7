// C (f32, 200 x 200) = relu(A (f16, 200 x 64) W^T + Bias) with W (200 x 64)
// int8 weights Q times a scale S per output channel, dequantized in a
// tile.parallel each 32-wide K step (W8A16), the bias and ReLU in a
// tile.parallel after the loop. 64 x 64 tiles, 4 x 4 blocks of them, the
// last ones partly outside C (S and Bias padded to 256).
// test/Execution/merge-blocks.test runs it as written and after
// tile-merge-blocks (1 x 2 blocks of 128 x 256 tiles).
func.func @dequant_bias_relu(%A: memref<200x64xf16>, %Q: memref<200x64xi8>, %S: memref<256xf16>, %Bias: memref<256xf32>, %C: memref<200x200xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (4, 4) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<64x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c2 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<200x64xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %Q[%n, %kk] -> %Qs : memref<200x64xi8>, memref<64x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 32) {
        %q = tile.load %Qs[%i, %j] : memref<64x32xi8, #gpu.address_space<workgroup>>
        %f = arith.sitofp %q : i8 to f16
        %row = arith.addi %n, %i : index
        %s = tile.load %S[%row] : memref<256xf16>
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Ws[%i, %j] : memref<64x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.parallel (%i, %j) in (64, 64) {
      %col = arith.addi %n, %j : index
      %b = tile.load %Bias[%col] : memref<256xf32>
      %v = tile.load %acc[%i, %j] : !tile.fragment<64x64xf32>
      %sum = arith.addf %v, %b : f32
      %r = arith.maximumf %sum, %zero : f32
      tile.store %r, %acc[%i, %j] : !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<64x64xf32>, memref<200x200xf32>
  }
  return
}
