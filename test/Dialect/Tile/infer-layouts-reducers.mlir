// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --split-input-file | FileCheck %s

// A reducer is where the loop that updates it runs: the loop follows the
// 64 x 128 tile (32 threads along j, 4 along i); the threads along j hold
// partial values of each row's element, copies of it.
// CHECK-LABEL: func.func @rows
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[16:s4, 4:t32], [32:t1, 4:s1]]>) : !tile.fragment<64x128xf32>
// CHECK: tile.fragment reducer(sum) layout(#tile.fragment<{{\[}}[16:s1, 4:t32]], replicate [32:t1]>) : !tile.fragment<64xf32>
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in (64, 128) layout(#tile.fragment<{{\[}}[16:s4, 4:t32], [32:t1, 4:s1]]>)
func.func @rows(%G: memref<64x128xf32>, %O: memref<64xf32>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %x = tile.fragment : !tile.fragment<64x128xf32>
    %r = tile.fragment reducer(sum) : !tile.fragment<64xf32>
    tile.copy %G[0, 0] -> %x : memref<64x128xf32>, !tile.fragment<64x128xf32>
    tile.parallel (%i, %j) in (64, 128) {
      %v = tile.load %x[%i, %j] : !tile.fragment<64x128xf32>
      %old = tile.load %r[%i] : !tile.fragment<64xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%i] : !tile.fragment<64xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<64xf32>
    tile.copy %r -> %O[0] : !tile.fragment<64xf32>, memref<64xf32>
  }
  return
}

// -----

// The reducer is not the largest fragment's free choice: a loop over a
// global tensor alone gets a free layout, and the reducer its projection.
// CHECK-LABEL: func.func @global_only
// CHECK: tile.fragment reducer(max) layout(#tile.fragment<{{\[}}[32:t1, 4:s1]], replicate [4:t32]>) : !tile.fragment<128xf32>
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in (16, 128) layout(#tile.fragment<{{\[}}[4:s4, 4:t32], [32:t1, 4:s1]]>)
func.func @global_only(%G: memref<16x128xf32>, %O: memref<128xf32>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %r = tile.fragment reducer(max) : !tile.fragment<128xf32>
    tile.parallel (%i, %j) in (16, 128) {
      %v = tile.load %G[%i, %j] : memref<16x128xf32>
      %old = tile.load %r[%j] : !tile.fragment<128xf32>
      %new = arith.maximumf %old, %v : f32
      tile.store %new, %r[%j] : !tile.fragment<128xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<128xf32>
    tile.copy %r -> %O[0] : !tile.fragment<128xf32>, memref<128xf32>
  }
  return
}

// -----

// Two loops whose threads hold different elements: the reducer is on
// every thread.
// CHECK-LABEL: func.func @two_loops
// CHECK: tile.fragment reducer(sum) layout(#tile.fragment<{{\[}}[1:s1]], replicate [128:t1]>) : !tile.fragment<1xf32>
func.func @two_loops(%A: memref<64xf32>, %O: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.fragment : !tile.fragment<64xf32>
    %r = tile.fragment reducer(sum) : !tile.fragment<1xf32>
    tile.copy %A[0] -> %a : memref<64xf32>, !tile.fragment<64xf32>
    tile.parallel (%i) in (64) {
      %v = tile.load %a[%i] : !tile.fragment<64xf32>
      %old = tile.load %r[%c0] : !tile.fragment<1xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%c0] : !tile.fragment<1xf32>
    }
    tile.parallel (%i) in (64) layout(#tile.fragment<[[64:t2]]>) {
      %v = tile.load %A[%i] : memref<64xf32>
      %old = tile.load %r[%c0] : !tile.fragment<1xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%c0] : !tile.fragment<1xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<1xf32>
    tile.copy %r -> %O[0] : !tile.fragment<1xf32>, memref<1xf32>
  }
  return
}

// -----

// A loop that updates a reducer runs each iteration once: following a
// fragment held twice (a reduction's result), on the first copy's threads.
// CHECK-LABEL: func.func @once
// CHECK: tile.fragment layout(#tile.fragment<{{\[}}[64:t1]], replicate [2:t64]>) : !tile.fragment<64xf32>
// CHECK: tile.fragment reducer(sum) layout(#tile.fragment<{{\[}}[1:s1]], replicate [64:t1]>) : !tile.fragment<1xf32>
// CHECK: tile.parallel (%{{.+}}) in (64) layout(#tile.fragment<{{\[}}[64:t1]]>)
func.func @once(%A: memref<64x2xf32>, %O: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.fragment layout(#tile.fragment<[[64:t1], [2:t64]]>) : !tile.fragment<64x2xf32>
    %rows = tile.fragment : !tile.fragment<64xf32>
    %r = tile.fragment reducer(sum) : !tile.fragment<1xf32>
    tile.copy %A[0, 0] -> %a : memref<64x2xf32>, !tile.fragment<64x2xf32>
    tile.reduce sum %a -> %rows dim 1 : !tile.fragment<64x2xf32>, !tile.fragment<64xf32>
    tile.parallel (%i) in (64) {
      %v = tile.load %rows[%i] : !tile.fragment<64xf32>
      %old = tile.load %r[%c0] : !tile.fragment<1xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%c0] : !tile.fragment<1xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<1xf32>
    tile.copy %r -> %O[0] : !tile.fragment<1xf32>, memref<1xf32>
  }
  return
}

// -----

// A reducer written with one copy per element (TileLang's replication
// "none") leads the loop that updates it: each thread runs its element's
// iterations, and finalize has nothing to combine.
// CHECK-LABEL: func.func @one_copy
// CHECK: tile.parallel (%{{.+}}, %{{.+}}) in (64, 32) layout(#tile.fragment<{{\[}}[64:t1], [32:s1]]>)
func.func @one_copy(%G: memref<64x32xf32>, %O: memref<64xf32>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %x = tile.fragment : !tile.fragment<64x32xf32>
    %r = tile.fragment reducer(sum) layout(#tile.fragment<[[64:t1]]>) : !tile.fragment<64xf32>
    tile.copy %G[0, 0] -> %x : memref<64x32xf32>, !tile.fragment<64x32xf32>
    tile.parallel (%i, %j) in (64, 32) {
      %v = tile.load %x[%i, %j] : !tile.fragment<64x32xf32>
      %old = tile.load %r[%i] : !tile.fragment<64xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%i] : !tile.fragment<64xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<64xf32>
    tile.copy %r -> %O[0] : !tile.fragment<64xf32>, memref<64xf32>
  }
  return
}
