// RUN: tile-opt %s --split-input-file --tile-widen-kernels | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-widen-kernels=max-threads=0 | FileCheck %s --check-prefix=OFF

// TileLang's 128 x 128 attention at 128 threads: the scores, the output
// accumulator (128 x 128 f32 each) and P (f16) take 320 registers per
// thread, more than 3/4 of sm_90a's 255: 256 threads share them (160 each).
// CHECK-LABEL: func.func @attention
// CHECK: tile.kernel grid({{.*}}) in (8) threads(256)
// OFF-LABEL: func.func @attention
// OFF: threads(128)
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @attention() {
  tile.kernel grid(%b) in (8) threads(128) {
    %S = tile.fragment : !tile.fragment<128x128xf32>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %P = tile.fragment : !tile.fragment<128x128xf16>
  }
  return
}
}

// -----

// A GEMM accumulator of 128 x 256 f32 at 128 threads (256 registers each)
// doubles once; at 256 threads (128 each) it fits as written.
// CHECK-LABEL: func.func @gemm
// CHECK: threads(256)
// CHECK: threads(256)
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @gemm() {
  tile.kernel grid(%b) in (8) threads(128) {
    %acc = tile.fragment : !tile.fragment<128x256xf32>
  }
  tile.kernel grid(%b) in (8) threads(256) {
    %acc = tile.fragment : !tile.fragment<128x256xf32>
  }
  return
}
}

// -----

// At most max-threads (256 by default): 128 x 512 f32 at 64 threads would
// want 512 threads; it gets 256.
// CHECK-LABEL: func.func @capped
// CHECK: threads(256)
module attributes {tile.target = #tile.target<"sm_80">} {
func.func @capped() {
  tile.kernel grid(%b) in (8) threads(64) {
    %acc = tile.fragment : !tile.fragment<128x512xf32>
  }
  return
}
}

// -----

// A layout written by the user fixes the threads; a count of partial warps
// is kept as written (96 threads at 86 registers each fit; 100 would not,
// but is not widened); the CPU target has no registers to spill; a module
// without a target is left to tile-infer-layouts' error.
// CHECK-LABEL: func.func @written
// CHECK: threads(32)
module attributes {tile.target = #tile.target<"sm_80">} {
func.func @written() {
  tile.kernel grid(%b) in (8) threads(32) {
    %acc = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %big = tile.fragment : !tile.fragment<128x256xf32>
  }
  return
}
}

// -----

// CHECK-LABEL: func.func @partial_warps
// CHECK: threads(96)
// CHECK: threads(100)
module attributes {tile.target = #tile.target<"sm_80">} {
func.func @partial_warps() {
  tile.kernel grid(%b) in (8) threads(96) {
    %acc = tile.fragment : !tile.fragment<64x128xf32>
  }
  tile.kernel grid(%b) in (8) threads(100) {
    %acc = tile.fragment : !tile.fragment<128x256xf32>
  }
  return
}
}

// -----

// CHECK-LABEL: func.func @host
// CHECK: threads(128)
module attributes {tile.target = #tile.target<"host">} {
func.func @host() {
  tile.kernel grid(%b) in (8) threads(128) {
    %acc = tile.fragment : !tile.fragment<128x256xf32>
  }
  return
}
}

// -----

// CHECK-LABEL: func.func @no_target
// CHECK: threads(128)
func.func @no_target() {
  tile.kernel grid(%b) in (8) threads(128) {
    %acc = tile.fragment : !tile.fragment<128x256xf32>
  }
  return
}
