// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --split-input-file | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: tile-opt %s --tile-attach-target=chip=gfx942 --tile-infer-layouts --split-input-file | FileCheck %s --check-prefixes=CHECK,CDNA
// RUN: tile-opt %s --tile-attach-target=chip=sm_70 --tile-infer-layouts --split-input-file | FileCheck %s --check-prefixes=CHECK,FMA

// The accumulator gets the matrix instruction's layout tiled over the warps
// (on sm_80 mma.sync m16n8k16, 2x2 warps of 4x8 tiles for 128x128 on 128
// threads; on gfx942 mfma 16x16x16 on 2 waves; without tensor cores an FMA
// layout).
// Shared operands get a swizzle ldmatrix reads conflict-free: 64-byte rows
// swizzle<64>, 256-byte rows swizzle<128>.
// CHECK-LABEL: func.func @accumulator
// SM80: tile.alloc_shared layout(#tile.swizzle<64>) : memref<128x32xf16
// SM80: tile.alloc_shared layout(#tile.swizzle<128>) : memref<32x128xf16
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[2:t64, 4:s32, 2:s2, 8:t4], [2:t32, 8:s4, 4:t1, 2:s1]]>) : !tile.fragment<128x128xf32>
// On gfx942, MFMA reads B (K x N) element by element, two K steps at a
// time: lane group g (16 lanes, 16 consecutive columns) reads row 8 g + j,
// all groups the same j at once. Its 32 K rows are stored in the order
// 8 (j / 2) + 2 g + j % 2 (factors p, g, j / 2, j % 2 with row strides 32,
// 2, 8, 1; a row is 64 elements), so the four groups' rows swizzle into
// distinct 16-byte chunks: 64 lanes, 32 banks, no conflict (the plain
// swizzle put all four groups on the same 8 banks). A, read along K 16
// bytes at a time, keeps its swizzle.
// CDNA: tile.alloc_shared layout(#tile.swizzle<64>) : memref<128x32xf16
// CDNA: tile.alloc_shared layout(#tile.shared<{{\[}}[1:2048, 4:128, 4:512, 2:64], [2:2048, 64:1]], swizzle 128>) : memref<32x128xf16
// CDNA: tile.fragment layout(#tile.fragment<{{\[}}[8:s16, 4:t16, 4:s1], [2:t64, 4:s4, 16:t1]]>) : !tile.fragment<128x128xf32>
// FMA: tile.alloc_shared layout(#tile.linear) : memref<128x32xf16
// FMA: tile.fragment layout(#tile.fragment<{{\[}}[8:t16, 16:s8], [16:t1, 8:s1]]>) : !tile.fragment<128x128xf32>
func.func @accumulator() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<128x128xf32>
    tile.gemm %a, %b, %c : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
  }
  return
}

// -----

// full_row on a tile too short for all its warps along M (64 rows: 4
// warps of 16): as many as fit along M, the rest along N (4x2 warps), as
// TileLang does.
// CHECK-LABEL: func.func @full_row_fallback
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[4:t64, 2:s2, 8:t4], [2:t32, 4:s4, 4:t1, 2:s1]]>) : !tile.fragment<64x64xf32>
func.func @full_row_fallback() {
  tile.kernel grid(%bx) in (1) threads(256) {
    %a = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x64xf32>
    tile.gemm %a, %b, %c policy full_row : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
  }
  return
}

// -----

// Warp policies: full_row stacks all warps along M.
// CHECK-LABEL: func.func @full_row
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[4:t32, 2:s32, 2:s2, 8:t4], [8:s4, 4:t1, 2:s1]]>) : !tile.fragment<128x64xf32>
func.func @full_row() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<128x64xf32>
    tile.gemm %a, %b, %c policy full_row : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
  }
  return
}

// -----

// full_col stacks them along N.
// CHECK-LABEL: func.func @full_col
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[4:s4, 2:s2, 8:t4], [4:t32, 4:t1, 2:s1]]>) : !tile.fragment<64x32xf32>
func.func @full_col() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x32xf32>
    tile.gemm %a, %b, %c policy full_col : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x32xf32>
  }
  return
}

// -----

// An A operand in registers gets mma's A layout, copied on the two warps of
// each warp row; a transposed B in shared memory is swizzled on its K rows.
// CHECK-LABEL: func.func @operand_in_registers
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[2:t64, 2:s16, 2:s2, 8:t4], [2:s8, 2:s4, 4:t1, 2:s1]], replicate [2:t32]>) : !tile.fragment<64x32xf16>
// SM80: tile.alloc_shared layout(#tile.swizzle<64>) : memref<64x32xf16
func.func @operand_in_registers() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.fragment : !tile.fragment<64x32xf16>
    %b = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x64xf32>
    tile.gemm %a, %b, %c transpose_b : !tile.fragment<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
  }
  return
}

// -----

// f64 has no tensor-core path: FMA layout and row-major shared memory on
// every chip.
// CHECK-LABEL: func.func @f64_uses_fma
// CHECK: tile.alloc_shared layout(#tile.linear) : memref<32x8xf64
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[8:t8, 4:s4], [8:t1, 4:s1]]>) : !tile.fragment<32x32xf64>
func.func @f64_uses_fma() {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<32x8xf64, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<8x32xf64, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<32x32xf64>
    tile.gemm %a, %b, %c : memref<32x8xf64, #gpu.address_space<workgroup>>, memref<8x32xf64, #gpu.address_space<workgroup>>, !tile.fragment<32x32xf64>
  }
  return
}

// -----

// Free choice, largest fragment first: the 64x128 f32 scores get 128-bit
// vectors (4 floats) per thread, 32 threads per row; the reduce result is
// the projection (each row's max on the 32 threads of its row); the
// parallel loop runs on the scores' owners and reads the max it holds.
// CHECK-LABEL: func.func @softmax_rows
// CHECK: %[[M:.+]] = tile.fragment layout(#tile.fragment<{{\[}}[16:s1, 4:t32]], replicate [32:t1]>) : !tile.fragment<64xf32>
// CHECK: %[[S:.+]] = tile.fragment layout(#tile.fragment<{{\[}}[16:s4, 4:t32], [32:t1, 4:s1]]>) : !tile.fragment<64x128xf32>
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in (64, 128) layout(#tile.fragment<{{\[}}[16:s4, 4:t32], [32:t1, 4:s1]]>)
func.func @softmax_rows(%S: memref<?x?xf32>, %i: index) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %m = tile.fragment : !tile.fragment<64xf32>
    %s = tile.fragment : !tile.fragment<64x128xf32>
    tile.copy %S[%i, 0] -> %s : memref<?x?xf32>, !tile.fragment<64x128xf32>
    tile.reduce max %s -> %m dim 1 : !tile.fragment<64x128xf32>, !tile.fragment<64xf32>
    tile.parallel (%r, %c) in (64, 128) {
      %x = tile.load %s[%r, %c] : !tile.fragment<64x128xf32>
      %y = tile.load %m[%r] : !tile.fragment<64xf32>
      %d = arith.subf %x, %y : f32
      tile.store %d, %s[%r, %c] : !tile.fragment<64x128xf32>
    }
    tile.copy %s -> %S[%i, 0] : !tile.fragment<64x128xf32>, memref<?x?xf32>
  }
  return
}

// -----

// A fragment dim read at a uniform index (a run-time row %k, a constant)
// stays in every thread's slots: the free choice spreads only the other
// dims, and a one-element fragment read at index 0 is held by every thread
// that runs the loop.
// CHECK-LABEL: func.func @uniform_index
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[4:s4], [16:t1, 4:s1]]>) : !tile.fragment<4x64xf32>
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[16:t1, 4:s1]]>) : !tile.fragment<64xf32>
// SM80: tile.fragment layout(#tile.fragment<{{\[}}[1:s1]], replicate [16:t1]>) : !tile.fragment<1xf32>
func.func @uniform_index(%k: index) {
  tile.kernel grid(%b) in (1) threads(64) {
    %f = tile.fragment : !tile.fragment<4x64xf32>
    %r = tile.fragment : !tile.fragment<64xf32>
    %one = tile.fragment : !tile.fragment<1xf32>
    tile.parallel (%i) in (64) {
      %v = tile.load %f[%k, %i] : !tile.fragment<4x64xf32>
      %z = arith.constant 0 : index
      %t = tile.load %one[%z] : !tile.fragment<1xf32>
      %m = arith.mulf %v, %t : f32
      tile.store %m, %r[%i] : !tile.fragment<64xf32>
    }
  }
  return
}

// -----

// A parallel loop over an accumulator takes the accumulator's layout; the
// row vector it reads gets the projection onto rows, which the later
// reduce also produces.
// CHECK-LABEL: func.func @loop_over_accumulator
// SM80: %[[ROW:.+]] = tile.fragment layout(#tile.fragment<{{\[}}[4:t32, 2:s2, 2:s1, 8:t4]], replicate [4:t1]>) : !tile.fragment<128xf32>
// SM80: tile.parallel (%{{.+}}, %{{.+}}) in (128, 32) layout(#tile.fragment<{{\[}}[4:t32, 2:s16, 2:s2, 8:t4], [4:s4, 4:t1, 2:s1]]>)
func.func @loop_over_accumulator() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x32xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<128x32xf32>
    %row = tile.fragment : !tile.fragment<128xf32>
    tile.gemm %a, %b, %c policy full_row : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x32xf32>
    tile.parallel (%i, %j) in (128, 32) {
      %x = tile.load %c[%i, %j] : !tile.fragment<128x32xf32>
      %s = tile.load %row[%i] : !tile.fragment<128xf32>
      %y = arith.mulf %x, %s : f32
      tile.store %y, %c[%i, %j] : !tile.fragment<128x32xf32>
    }
    tile.reduce sum %c -> %row dim 1 : !tile.fragment<128x32xf32>, !tile.fragment<128xf32>
  }
  return
}

// -----

// Annotations are kept and propagate through fragment copies, cumsum and
// reductions (down to a single element held by every owner).
// CHECK-LABEL: func.func @annotation_propagates
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[64:t1], [16:s1]]>) : !tile.fragment<64x16xf32>
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[64:t1], [16:s1]]>) : !tile.fragment<64x16xf32>
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[64:t1], [16:s1]]>) : !tile.fragment<64x16xf32>
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[]], replicate [64:t1]>) : !tile.fragment<1xf32>
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[64:t1]]>) : !tile.fragment<64xf32>
func.func @annotation_propagates(%G: memref<?x?xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.fragment layout(#tile.fragment<[[64:t1], [16:s1]]>) : !tile.fragment<64x16xf32>
    %b = tile.fragment : !tile.fragment<64x16xf32>
    %c = tile.fragment : !tile.fragment<64x16xf32>
    %t = tile.fragment : !tile.fragment<1xf32>
    %v = tile.fragment : !tile.fragment<64xf32>
    tile.copy %G[0, 0] -> %a : memref<?x?xf32>, !tile.fragment<64x16xf32>
    tile.copy %a -> %b : !tile.fragment<64x16xf32>, !tile.fragment<64x16xf32>
    tile.cumsum %b -> %c dim 1 : !tile.fragment<64x16xf32>, !tile.fragment<64x16xf32>
    tile.reduce sum %c -> %v dim 1 : !tile.fragment<64x16xf32>, !tile.fragment<64xf32>
    tile.reduce sum %v -> %t dim 0 : !tile.fragment<64xf32>, !tile.fragment<1xf32>
  }
  return
}

// -----

// A loop that touches no fragment is vectorized for what it reads: f16,
// 8 per thread, 8 threads per 64-wide row. Unconstrained shared memory is
// row-major.
// CHECK-LABEL: func.func @free_loop
// CHECK: tile.alloc_shared layout(#tile.linear)
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in (32, 64) layout(#tile.fragment<{{\[}}[2:s8, 16:t8], [8:t1, 8:s1]]>)
func.func @free_loop(%G: memref<?x?xf16>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %sh = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.parallel (%r, %c) in (32, 64) {
      %x = tile.load %G[%r, %c] : memref<?x?xf16>
      tile.store %x, %sh[%r, %c] : memref<32x64xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// A loop indexing a fragment in transposed order runs on its owners too.
// CHECK-LABEL: func.func @transposed_access
// CHECK: %[[F:.+]] = tile.fragment layout(#tile.fragment<{{\[}}[2:s8, 8:t16], [16:t1, 8:s1]]>) : !tile.fragment<16x128xf16>
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in (128, 16) layout(#tile.fragment<{{\[}}[16:t1, 8:s1], [2:s8, 8:t16]]>)
func.func @transposed_access(%G: memref<?x?xf16>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %f = tile.fragment : !tile.fragment<16x128xf16>
    tile.copy %G[0, 0] -> %f : memref<?x?xf16>, !tile.fragment<16x128xf16>
    tile.parallel (%j, %i) in (128, 16) {
      %x = tile.load %f[%i, %j] : !tile.fragment<16x128xf16>
      tile.store %x, %G[%j, %i] : memref<?x?xf16>
    }
  }
  return
}
