// fp8 GEMM as torch._scaled_mm computes it: C (bf16, M x N) = scale_a *
// scale_b * A x B^T with A (f8E4M3FN, M x K) and B (f8E4M3FN, N x K) both
// row-major, so that both operands are K-major, as Hopper's fp8 wgmma reads
// them; f32 accumulation. 128 x 256 output tiles over two warpgroups (on
// sm_90a a third, the producer, fills the pipeline with TMA), K in steps
// of 128 (one 128-byte swizzle panel per row), 4 stages. The scales are
// applied to the accumulator before the bf16 store.
func.func @gemm_fp8(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>,
                    %C: memref<?x?xbf16>, %scale_a: f32, %scale_b: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf8E4M3FN>
  %k = memref.dim %A, %c1 : memref<?x?xf8E4M3FN>
  %n = memref.dim %B, %c0 : memref<?x?xf8E4M3FN>
  %grid_m = arith.ceildivui %m, %c128 : index
  %grid_n = arith.ceildivui %n, %c256 : index
  %num_k = arith.ceildivui %k, %c128 : index
  %scale = arith.mulf %scale_a, %scale_b : f32
  tile.kernel grid(%bx, %by) in (%grid_m, %grid_n) threads(256) {
    %A_shared = tile.alloc_shared : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %B_shared = tile.alloc_shared : memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %C_local = tile.fragment : !tile.fragment<128x256xf32>
    tile.fill %C_local, %zero : !tile.fragment<128x256xf32>
    %m0 = arith.muli %bx, %c128 : index
    %n0 = arith.muli %by, %c256 : index
    tile.pipelined %kb = %c0 to %num_k step %c1 stages(4) {
      %k0 = arith.muli %kb, %c128 : index
      tile.copy %A[%m0, %k0] -> %A_shared : memref<?x?xf8E4M3FN>, memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %B_shared : memref<?x?xf8E4M3FN>, memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>
      tile.gemm %A_shared, %B_shared, %C_local transpose_b : memref<128x128xf8E4M3FN, #gpu.address_space<workgroup>>, memref<256x128xf8E4M3FN, #gpu.address_space<workgroup>>, !tile.fragment<128x256xf32>
    }
    tile.parallel (%i, %j) in (128, 256) {
      %x = tile.load %C_local[%i, %j] : !tile.fragment<128x256xf32>
      %y = arith.mulf %x, %scale : f32
      tile.store %y, %C_local[%i, %j] : !tile.fragment<128x256xf32>
    }
    tile.copy %C_local -> %C[%m0, %n0] : !tile.fragment<128x256xf32>, memref<?x?xbf16>
  }
  return
}
