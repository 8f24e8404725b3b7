// RUN: tile-opt %s --split-input-file --tile-widen-kernels | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-widen-kernels=max-threads=0 | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --split-input-file --tile-widen-kernels=max-threads=128 | FileCheck %s --check-prefix=CAP

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

// At most max-threads: 128 x 192 f32 at 64 threads (384 registers each)
// gets 256 threads (96 each); with max-threads=128, 128 (192 each).
// CHECK-LABEL: func.func @capped
// CHECK: threads(256)
// CAP-LABEL: func.func @capped
// CAP: threads(128)
module attributes {tile.target = #tile.target<"sm_80">} {
func.func @capped() {
  tile.kernel grid(%b) in (8) threads(64) {
    %acc = tile.fragment : !tile.fragment<128x192xf32>
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

// Widened only where layout inference still finds layouts (tried on a
// copy): here the fragments would want 256 threads (208 registers each at
// 128), but at 256 the parallel loop's fragments conflict (two warpgroups
// share the 64 rows of the full_row gemms), so the kernel keeps its 128.
// CHECK-LABEL: func.func @conflict
// CHECK: threads(128)
// CHECK-NOT: error
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @conflict() {
  tile.kernel grid(%b) in (8) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<64x64xf32>
    %D = tile.fragment : !tile.fragment<64x64xf32>
    %P = tile.fragment : !tile.fragment<64x64xf16>
    %O = tile.fragment : !tile.fragment<64x64xf32>
    %pad = tile.fragment : !tile.fragment<128x128xf32>
    tile.gemm %As, %Bs, %S transpose_b policy full_row : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.gemm %Bs, %As, %D transpose_b policy full_row : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.parallel (%i, %j) in (64, 64) {
      %s = tile.load %S[%i, %j] : !tile.fragment<64x64xf32>
      %d = tile.load %D[%i, %j] : !tile.fragment<64x64xf32>
      %m = arith.mulf %s, %d : f32
      %h = arith.truncf %m : f32 to f16
      tile.store %h, %P[%i, %j] : !tile.fragment<64x64xf16>
    }
    tile.gemm %P, %Bs, %O policy full_row : !tile.fragment<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
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

// -----

// A kernel that reads thread indices keeps its threads: its code is
// written per thread.
// CHECK-LABEL: func.func @thread_indexed
// CHECK: threads(128)
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @thread_indexed(%Y: memref<128xf32>) {
  tile.kernel grid(%b) in (8) threads(128) {
    %S = tile.fragment : !tile.fragment<128x128xf32>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %P = tile.fragment : !tile.fragment<128x128xf16>
    %t = tile.thread_id thread : index
  }
  return
}
}

// -----

// One warpgroup dequantizing int8 weights into the gemm's B in its loop
// (W8A16 at 128 x 128): on sm_90a a second warpgroup shares the conversion;
// on sm_80 (no wgmma) the kernel keeps its threads.
// CHECK-LABEL: func.func @dequant
// CHECK: tile.kernel grid({{.*}}) in (32, 32) threads(256)
// CHECK: tile.kernel grid({{.*}}) in (32, 32) threads(128)
// OFF-LABEL: func.func @dequant
// OFF: threads(128)
// CAP-LABEL: func.func @dequant
// CAP: threads(128)
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @dequant(%A: memref<4096x4096xf16>, %B: memref<4096x4096xi8>, %S: memref<4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Qs : memref<4096x4096xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Qs[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %row = arith.addi %n, %i : index
        %s = tile.load %S[%row] : memref<4096xf16>
        %f = arith.sitofp %q : i8 to f16
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Ws[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf16>
  }
  return
}
}
module attributes {tile.target = #tile.target<"sm_80">} {
func.func @dequant_sm80(%A: memref<4096x4096xf16>, %B: memref<4096x4096xi8>, %S: memref<4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Qs : memref<4096x4096xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Qs[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %row = arith.addi %n, %i : index
        %s = tile.load %S[%row] : memref<4096xf16>
        %f = arith.sitofp %q : i8 to f16
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Ws[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf16>
  }
  return
}
}
