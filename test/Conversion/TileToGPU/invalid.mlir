// Programs convert-tile-to-gpu cannot lower get a diagnostic at the op.
// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-attach-target=chip=sm_80 --convert-tile-to-gpu

func.func @no_layout(%X: memref<32xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    // expected-error @+1 {{has no layout; run tile-infer-layouts before lowering to the GPU}}
    %f = tile.fragment : !tile.fragment<32xf32>
    tile.copy %X[0] -> %f : memref<32xf32>, !tile.fragment<32xf32>
  }
  return
}

// -----

func.func @fragment_reduced_into_shared(%X: memref<32x32xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[32:t1], [32:s1]]>) : !tile.fragment<32x32xf32>
    %s = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %a : memref<32x32xf32>, !tile.fragment<32x32xf32>
    // expected-error @+1 {{reduces a fragment into shared memory on the GPU; reduce into a fragment, then copy it}}
    tile.reduce sum %a -> %s dim 1 : !tile.fragment<32x32xf32>, memref<32xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @wide_reduce_across_threads(%X: memref<32x32xf64>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[32:s1], [32:t1]]>) : !tile.fragment<32x32xf64>
    %r = tile.fragment layout(#tile.fragment<[[32:s1]], replicate [32:t1]>) : !tile.fragment<32xf64>
    tile.copy %X[0, 0] -> %a : memref<32x32xf64>, !tile.fragment<32x32xf64>
    // expected-error @+1 {{across threads on the GPU yet (32-bit at most)}}
    tile.reduce sum %a -> %r dim 1 : !tile.fragment<32x32xf64>, !tile.fragment<32xf64>
  }
  return
}

// -----

func.func @reduce_result_not_projection(%X: memref<32x32xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[32:t1], [32:s1]]>) : !tile.fragment<32x32xf32>
    %r = tile.fragment layout(#tile.fragment<[[32:s1]], replicate [32:t1]>) : !tile.fragment<32xf32>
    tile.copy %X[0, 0] -> %a : memref<32x32xf32>, !tile.fragment<32x32xf32>
    // expected-error @+1 {{result layout is not the projection of the source layout; run tile-infer-layouts}}
    tile.reduce sum %a -> %r dim 1 : !tile.fragment<32x32xf32>, !tile.fragment<32xf32>
  }
  return
}

// -----

func.func @parallel_reads_foreign_element(%X: memref<32xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[32:t1]]>) : !tile.fragment<32xf32>
    %b = tile.fragment layout(#tile.fragment<[[32:s1]], replicate [32:t1]>) : !tile.fragment<32xf32>
    tile.copy %X[0] -> %a : memref<32xf32>, !tile.fragment<32xf32>
    tile.parallel (%i) in (32) layout(#tile.fragment<[[32:s1]], replicate [32:t1]>) {
      // expected-error @+1 {{reads a fragment element that the thread running this iteration does not hold in a fixed slot}}
      %v = tile.load %a[%i] : !tile.fragment<32xf32>
      tile.store %v, %b[%i] : !tile.fragment<32xf32>
    }
  }
  return
}

// -----

func.func @gemm_accumulator_layout(%A: memref<16x16xf16>, %B: memref<16x8xf16>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment layout(#tile.fragment<[[16:s8], [8:s1]], replicate [32:t1]>) : !tile.fragment<16x8xf32>
    tile.copy %A[0, 0] -> %a : memref<16x16xf16>, memref<16x16xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %b : memref<16x8xf16>, memref<16x8xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{accumulator layout does not match mma.sync m16n8k16, 1x1 warps, 1x1x1 repeats per warp; run tile-infer-layouts for this chip}}
    tile.gemm %a, %b, %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x8xf32>
  }
  return
}

// -----

func.func @reducer_f64_across_threads(%X: memref<4x8xf64>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %r = tile.fragment reducer(sum) layout(#tile.fragment<[[4:t8]], replicate [8:t1]>) : !tile.fragment<4xf64>
    tile.parallel (%i, %j) in (4, 8) layout(#tile.fragment<[[4:t8], [8:t1]]>) {
      %v = tile.load %X[%i, %j] : memref<4x8xf64>
      %old = tile.load %r[%i] : !tile.fragment<4xf64>
      %new = arith.addf %old, %v : f64
      tile.store %new, %r[%i] : !tile.fragment<4xf64>
    }
    // expected-error @+1 {{'tile.finalize_reducer' op cannot combine 'f64' across threads on the GPU yet (32-bit at most)}}
    tile.finalize_reducer %r : !tile.fragment<4xf64>
  }
  return
}

// -----

// Between thread indices a shared buffer is reached element by element.
func.func @shared_view(%Y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(32) {
    %s = tile.alloc_shared : memref<32xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'memref.subview' op uses a shared buffer outside tile ops}}
    %v = memref.subview %s[0] [4] [1] : memref<32xf32, #gpu.address_space<workgroup>> to memref<4xf32, strided<[1]>, #gpu.address_space<workgroup>>
    %x = memref.load %v[%c0] : memref<4xf32, strided<[1]>, #gpu.address_space<workgroup>>
    memref.store %x, %Y[%c0] : memref<4xf32>
  }
  return
}

// -----

// A thread range synchronizes on a named barrier of its own: the hardware has
// 15 beside the block's.
func.func @too_many_ranges() {
  tile.kernel grid(%bx) in (1) threads(1024) {
    tile.thread_range 0 to 32 {
      tile.barrier
    }
    tile.thread_range 32 to 64 {
      tile.barrier
    }
    tile.thread_range 64 to 96 {
      tile.barrier
    }
    tile.thread_range 96 to 128 {
      tile.barrier
    }
    tile.thread_range 128 to 160 {
      tile.barrier
    }
    tile.thread_range 160 to 192 {
      tile.barrier
    }
    tile.thread_range 192 to 224 {
      tile.barrier
    }
    tile.thread_range 224 to 256 {
      tile.barrier
    }
    tile.thread_range 256 to 288 {
      tile.barrier
    }
    tile.thread_range 288 to 320 {
      tile.barrier
    }
    tile.thread_range 320 to 352 {
      tile.barrier
    }
    tile.thread_range 352 to 384 {
      tile.barrier
    }
    tile.thread_range 384 to 416 {
      tile.barrier
    }
    tile.thread_range 416 to 448 {
      tile.barrier
    }
    tile.thread_range 448 to 480 {
      tile.barrier
    }
    // expected-error @+1 {{is one of more than 15 different thread ranges, which need a named barrier each}}
    tile.thread_range 480 to 512 {
      tile.barrier
    }
  }
  return
}
