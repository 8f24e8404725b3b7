// The GEMM of TileLang's lazy-JIT tutorial, written in the tile dialect:
// C (1024x256, f32) = A (1024x512, f16) x B (512x256, f16), with 128x128
// output tiles per block, 32-wide K steps, 128 threads and a 3-stage
// software pipeline.
//
//   with T.Kernel(T.ceildiv(M, 128), T.ceildiv(N, 128), threads=128) as (bx, by):
//       A_shared = T.alloc_shared((128, 32), A.dtype)
//       B_shared = T.alloc_shared((32, 128), B.dtype)
//       C_local = T.alloc_fragment((128, 128), out_dtype)
//       T.clear(C_local)
//       for k in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
//           T.copy(A[bx * 128, k * 32], A_shared)
//           T.copy(B[k * 32, by * 128], B_shared)
//           T.gemm(A_shared, B_shared, C_local)
//       T.copy(C_local, C[bx * 128, by * 128])

func.func @gemm(%A: memref<1024x512xf16>, %B: memref<512x256xf16>,
                %C: memref<1024x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %num_k = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (8, 2) threads(128) {
    %A_shared = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %B_shared = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %C_local = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %C_local, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %bx, %c128 : index
    %n = arith.muli %by, %c128 : index
    tile.pipelined %k = %c0 to %num_k step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %A_shared : memref<1024x512xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %B_shared : memref<512x256xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %A_shared, %B_shared, %C_local : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %C_local -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<1024x256xf32>
  }
  return
}
