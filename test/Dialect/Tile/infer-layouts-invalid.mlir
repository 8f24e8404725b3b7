// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --split-input-file -verify-diagnostics

func.func @n_not_multiple_of_8() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x100xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<128x100xf32>
    // expected-error @+1 {{'tile.gemm' op tile 128x100 does not divide over 4 warps with mma.sync m16n8k16 (policy square): each warp's share needs a multiple of 16 rows and 8 columns}}
    tile.gemm %a, %b, %c : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x100xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x100xf32>
  }
  return
}

// -----

// One m16n8 instruction's tile over two warps: no grid of them fits, along
// M or N (full_row falls back to N only when some does).
func.func @full_row_too_many_warps() {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x8xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x8xf32>
    // expected-error @+1 {{tile 16x8 does not divide over 2 warps with mma.sync m16n8k16 (policy full_row)}}
    tile.gemm %a, %b, %c policy full_row : memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x8xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x8xf32>
  }
  return
}

// -----

func.func @k_not_multiple_of_16() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x24xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<24x64xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x64xf32>
    // expected-error @+1 {{'tile.gemm' op K = 24 is not a multiple of 16, the k of mma.sync m16n8k16}}
    tile.gemm %a, %b, %c : memref<64x24xf16, #gpu.address_space<workgroup>>, memref<24x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
  }
  return
}

// -----

func.func @threads_not_whole_warps() {
  tile.kernel grid(%bx) in (1) threads(48) {
    %a = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x64xf32>
    // expected-error @+1 {{'tile.gemm' op needs a multiple of 32 threads for mma.sync m16n8k16, the kernel has 48}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
  }
  return
}

// -----

func.func @annotated_accumulator() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    // expected-note @+1 {{that layout was chosen here: annotated in the source}}
    %c = tile.fragment layout(#tile.fragment<[[128:t1], [128:s1]]>) : !tile.fragment<128x128xf32>
    // expected-error @+1 {{'tile.gemm' op layout conflict: the accumulator of this tile.gemm (mma.sync m16n8k16, 2x2 warps, 4x8x2 repeats per warp) needs #tile.fragment<[[2:t64, 4:s32, 2:s2, 8:t4], [2:t32, 8:s4, 4:t1, 2:s1]]> but it already has #tile.fragment<[[128:t1], [128:s1]]>}}
    tile.gemm %a, %b, %c : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
  }
  return
}

// -----

func.func @loop_over_two_layouts() {
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.fragment layout(#tile.fragment<[[64:t1], [8:s1]]>) : !tile.fragment<64x8xf32>
    // expected-note @+1 {{that layout was chosen here: annotated in the source}}
    %y = tile.fragment layout(#tile.fragment<[[64:s1], [8:t1]]>) : !tile.fragment<64x8xf32>
    // expected-error @+1 {{'tile.parallel' op layout conflict: this tile.parallel (runs each iteration on the threads that own the fragment elements it indexes) reads a fragment that needs #tile.fragment<[[64:t1], [8:s1]]> but it already has #tile.fragment<[[64:s1], [8:t1]]>}}
    tile.parallel (%i, %j) in (64, 8) {
      %a = tile.load %x[%i, %j] : !tile.fragment<64x8xf32>
      %b = tile.load %y[%i, %j] : !tile.fragment<64x8xf32>
      %s = arith.addf %a, %b : f32
      tile.store %s, %x[%i, %j] : !tile.fragment<64x8xf32>
    }
  }
  return
}

// -----

func.func @broadcast_not_held() {
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.fragment layout(#tile.fragment<[[64:t1], [8:s1]]>) : !tile.fragment<64x8xf32>
    // Every row's value lives on thread 0 (slot i), but row i runs on thread i.
    // expected-note @+1 {{that layout was chosen here: annotated in the source}}
    %m = tile.fragment layout(#tile.fragment<[[64:s1]]>) : !tile.fragment<64xf32>
    // expected-error @+1 {{'tile.parallel' op layout conflict: this tile.parallel (runs each iteration on the threads that own the fragment elements it indexes) reads a fragment that needs #tile.fragment<[[64:t1]]> but it already has #tile.fragment<[[64:s1]]>}}
    tile.parallel (%i, %j) in (64, 8) {
      %a = tile.load %x[%i, %j] : !tile.fragment<64x8xf32>
      %b = tile.load %m[%i] : !tile.fragment<64xf32>
      %s = arith.addf %a, %b : f32
      tile.store %s, %x[%i, %j] : !tile.fragment<64x8xf32>
    }
  }
  return
}

// -----

func.func @reduce_into_elsewhere() {
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.fragment layout(#tile.fragment<[[64:t1], [8:s1]]>) : !tile.fragment<64x8xf32>
    // expected-note @+1 {{that layout was chosen here: annotated in the source}}
    %r = tile.fragment layout(#tile.fragment<[[64:s1]]>) : !tile.fragment<64xf32>
    // expected-error @+1 {{'tile.reduce' op layout conflict: the result of this tile.reduce: the source's layout without the reduced dim needs #tile.fragment<[[64:t1]]> but it already has #tile.fragment<[[64:s1]]>}}
    tile.reduce sum %x -> %r dim 1 : !tile.fragment<64x8xf32>, !tile.fragment<64xf32>
  }
  return
}

// -----

// A dim read at a uniform index must be in each thread's slots; a layout
// that spreads it over threads (given here) cannot serve the loop.
func.func @uniform_dim_on_threads(%k: index) {
  tile.kernel grid(%b) in (1) threads(64) {
    // expected-note @+1 {{that layout was chosen here: annotated in the source}}
    %f = tile.fragment layout(#tile.fragment<[[4:t16], [16:t1]]>) : !tile.fragment<4x16xf32>
    %r = tile.fragment : !tile.fragment<16xf32>
    // expected-error @+1 {{'tile.parallel' op layout conflict: this tile.parallel (runs each iteration on the threads that own the fragment elements it indexes) reads a fragment that needs #tile.fragment<[[4:s4], [4:t1, 4:s1]]> but it already has #tile.fragment<[[4:t16], [16:t1]]>}}
    tile.parallel (%i) in (16) {
      %v = tile.load %f[%k, %i] : !tile.fragment<4x16xf32>
      tile.store %v, %r[%i] : !tile.fragment<16xf32>
    }
  }
  return
}

// -----

// A loop that updates a reducer must run each iteration once: a written
// layout that runs each on two threads would count it twice.
func.func @reducer_update_replicated(%A: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %r = tile.fragment reducer(sum) : !tile.fragment<1xf32>
    // expected-error @+1 {{'tile.parallel' op updates a reducer, but its layout runs each iteration on 2 threads: a loop that updates a reducer runs each iteration once}}
    tile.parallel (%i) in (64) layout(#tile.fragment<[[64:t1]], replicate [2:t64]>) {
      %v = tile.load %A[%i] : memref<64xf32>
      %old = tile.load %r[%c0] : !tile.fragment<1xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%c0] : !tile.fragment<1xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<1xf32>
  }
  return
}
