// A persistent GEMM: C (f32, M x N) = A (f16, M x K) x B (f16, K x N), the
// bench's Hopper configuration (128 x 256 tiles, 64-wide K steps, 256
// threads, 3 stages, rasterized) marked persistent: on a GPU,
// min(tiles, multiprocessors) blocks walk the tiles. Used by
// test/Execution/gemm-persistent.test (CPU), test/Integration/gemm.test
// (GPU) and test/NVVM/persistent.test (PTX).
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 128 : index
  %bn = arith.constant 256 : index
  %bk = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %grid_m = arith.ceildivui %m, %bm : index
  %grid_n = arith.ceildivui %n, %bn : index
  %num_k = arith.ceildivui %k, %bk : index
  tile.kernel grid(%bx, %by) in (%grid_m, %grid_n) threads(256) raster(#tile.raster<8, row>) persistent {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x256xf32>
    tile.fill %acc, %zero : !tile.fragment<128x256xf32>
    %m0 = arith.muli %bx, %bm : index
    %n0 = arith.muli %by, %bn : index
    tile.pipelined %kb = %c0 to %num_k step %c1 stages(3) {
      %k0 = arith.muli %kb, %bk : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<64x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x256xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x256xf32>, memref<?x?xf32>
  }
  return
}
