// GEMM with dynamic M, N and K: C (f32) = A (f16, M x K) x B (f16, K x N).
// The grid and the K loop are computed from the tensors' sizes; partial
// tiles at the edges read zeros and drop writes outside C.
func.func @gemm_dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>,
                        %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = memref.dim %A, %c0 : memref<?x?xf16>
  %k = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %grid_m = arith.ceildivui %m, %c128 : index
  %grid_n = arith.ceildivui %n, %c128 : index
  %num_k = arith.ceildivui %k, %c32 : index
  tile.kernel grid(%bx, %by) in (%grid_m, %grid_n) threads(128) {
    %A_shared = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %B_shared = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %C_local = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %C_local, %zero : !tile.fragment<128x128xf32>
    %m0 = arith.muli %bx, %c128 : index
    %n0 = arith.muli %by, %c128 : index
    tile.pipelined %kb = %c0 to %num_k step %c1 stages(3) {
      %k0 = arith.muli %kb, %c32 : index
      tile.copy %A[%m0, %k0] -> %A_shared : memref<?x?xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %B_shared : memref<?x?xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %A_shared, %B_shared, %C_local : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %C_local -> %C[%m0, %n0] : !tile.fragment<128x128xf32>, memref<?x?xf32>
  }
  return
}
