// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts=explain --verify-diagnostics -o /dev/null

// With `explain`, every buffer and loop says why it got its layout, and
// points at the op that decided it.
func.func @explained(%S: memref<?x?xf32>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    // expected-remark @+1 {{layout #tile.swizzle<64>: operand A of this tile.gemm: the swizzle lets ldmatrix read rows without bank conflicts}}
    %a = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    // expected-remark @+1 {{layout #tile.padded<8>: annotated in the source}}
    %b = tile.alloc_shared layout(#tile.padded<8>) : memref<32x64xf16, #gpu.address_space<workgroup>>
    // expected-remark @+1 {{layout #tile.fragment<[[2:t64, 2:s16, 2:s2, 8:t4], [2:t32, 4:s4, 4:t1, 2:s1]]>: the accumulator of this tile.gemm (mma.sync m16n8k16, 2x2 warps, 2x4x2 repeats per warp)}}
    %c = tile.fragment : !tile.fragment<64x64xf32>
    // expected-remark @+1 {{layout #tile.fragment<[[2:t64, 2:s2, 2:s1, 8:t4]], replicate [2:t32, 4:t1]>: the result of this tile.reduce: the source's layout without the reduced dim}}
    %m = tile.fragment : !tile.fragment<64xf32>
    // expected-remark @+1 {{layout #tile.linear: free choice: no op constrains it, so row-major}}
    %unused = tile.alloc_shared : memref<16x16xf32, #gpu.address_space<workgroup>>
    // The gemm decided %a and %c (identical notes on one line match one
    // expectation).
    // expected-note @+1 {{decided by this op}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    // expected-note @+1 {{decided by this op}}
    tile.reduce max %c -> %m dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
    // expected-remark @+1 {{layout #tile.fragment<[[2:t64, 2:s16, 2:s2, 8:t4], [2:t32, 4:s4, 4:t1, 2:s1]]>: runs each iteration on the threads that own the fragment elements it indexes}}
    tile.parallel (%i, %j) in (64, 64) {
      %x = tile.load %c[%i, %j] : !tile.fragment<64x64xf32>
      %y = tile.load %m[%i] : !tile.fragment<64xf32>
      %d = arith.subf %x, %y : f32
      tile.store %d, %c[%i, %j] : !tile.fragment<64x64xf32>
    }
  }
  return
}
