// Layout inference spreads fragments over the threads that exist and
// refuses, naming the op and the count, a kernel that would need more
// registers per thread than the chip has or unroll past the compile bound.
// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --split-input-file -verify-diagnostics | FileCheck %s

// 33 threads share no factor with a 32 x 128 tile: the tile goes to 32 of
// them (a run of 4 columns of every row each), not all of it to one
// thread.
// CHECK-LABEL: func.func @threads_33
// CHECK: tile.fragment layout(#tile.fragment<{{\[\[}}32:s4], [32:t1, 4:s1]]>)
// CHECK: tile.parallel {{.*}} layout(#tile.fragment<{{\[\[}}32:s4], [32:t1, 4:s1]]>)
func.func @threads_33(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(33) {
    %a = tile.fragment : !tile.fragment<32x128xf32>
    tile.copy %A[%c0, %c0] -> %a : memref<?x?xf32>, !tile.fragment<32x128xf32>
    tile.parallel (%i, %j) in (32, 128) {
      %x = tile.load %a[%i, %j] : !tile.fragment<32x128xf32>
      %y = arith.mulf %x, %x : f32
      tile.store %y, %a[%i, %j] : !tile.fragment<32x128xf32>
    }
    tile.copy %a -> %A[%c0, %c0] : !tile.fragment<32x128xf32>, memref<?x?xf32>
  }
  return
}

// -----

// One thread cannot hold 4096 f32 elements in 255 registers.
func.func @one_thread(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(1) {
    // expected-error @+1 {{'tile.fragment' op needs 4096 registers per thread, more than the 255 of sm_80: its layout #tile.fragment<[[32:s128], [32:s4, 4:s1]]> gives its one thread 4096 elements of 'f32'}}
    %a = tile.fragment : !tile.fragment<32x128xf32>
    tile.copy %A[%c0, %c0] -> %a : memref<?x?xf32>, !tile.fragment<32x128xf32>
  }
  return
}

// -----

// 16-bit elements count two to a register: 510 fit in 255 registers, 512
// do not.
func.func @f16_registers(%A: memref<?xf16>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(1) {
    %a = tile.fragment : !tile.fragment<510xf16>
    // expected-error @+1 {{'tile.fragment' op needs 256 registers per thread, more than the 255 of sm_80: its layout #tile.fragment<[[64:s8, 8:s1]]> gives its one thread 512 elements of 'f16'}}
    %b = tile.fragment : !tile.fragment<512xf16>
    tile.copy %A[%c0] -> %a : memref<?xf16>, !tile.fragment<510xf16>
    tile.copy %A[%c0] -> %b : memref<?xf16>, !tile.fragment<512xf16>
  }
  return
}

// -----

// A layout written in the source is held to the same bound.
func.func @annotated(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(64) {
    // expected-error @+1 {{'tile.fragment' op needs 256 registers per thread, more than the 255 of sm_80: its layout #tile.fragment<[[64:t1], [256:s1]]> gives each of its 64 threads 256 elements of 'f32'}}
    %a = tile.fragment layout(#tile.fragment<[[64:t1], [256:s1]]>) : !tile.fragment<64x256xf32>
    tile.copy %A[%c0, %c0] -> %a : memref<?x?xf32>, !tile.fragment<64x256xf32>
  }
  return
}

// -----

// A tile.parallel over shared memory is not bounded by registers, but its
// body is unrolled once per slot: 8192 slots of 3 ops is past the bound.
func.func @parallel_unroll(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(1) {
    %s = tile.alloc_shared : memref<64x128xf32, #gpu.address_space<workgroup>>
    tile.copy %A[%c0, %c0] -> %s : memref<?x?xf32>, memref<64x128xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.parallel' op would unroll its body of 3 ops 8192 times per thread (24576 ops) under its layout #tile.fragment<[[64:s128], [32:s4, 4:s1]]>; the limit is 16384 ops: use more threads or a smaller tile}}
    tile.parallel (%i, %j) in (64, 128) {
      %x = tile.load %s[%i, %j] : memref<64x128xf32, #gpu.address_space<workgroup>>
      %y = arith.mulf %x, %x : f32
      tile.store %y, %s[%i, %j] : memref<64x128xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// Without a matrix instruction (none takes f8E4M3FN) each thread accumulates its
// share of C with FMAs, unrolled along K when an operand is in registers:
// 128 columns x 510 steps of K is past the bound although every fragment
// fits.
func.func @gemm_unroll() {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(1) {
    %a = tile.fragment : !tile.fragment<1x510xf8E4M3FN>
    %b = tile.alloc_shared : memref<510x128xf8E4M3FN, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<1x128xf32>
    // expected-error @+1 {{'tile.gemm' op would unroll 65280 instructions per thread (FMA, 1x1 threads, 1x128 elements per thread); the limit is 16384: use more threads or a smaller tile}}
    tile.gemm %a, %b, %c : !tile.fragment<1x510xf8E4M3FN>, memref<510x128xf8E4M3FN, #gpu.address_space<workgroup>>, !tile.fragment<1x128xf32>
  }
  return
}
