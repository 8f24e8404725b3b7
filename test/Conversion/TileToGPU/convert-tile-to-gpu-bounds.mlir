// The GPU lowering holds the layouts it is given to the same bounds as
// layout inference (registers per thread, unrolled ops), and pipelines a
// copy only when the cp.async rounds it unrolls stay bounded.
// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-attach-target=chip=sm_80 --convert-tile-to-gpu | FileCheck %s

func.func @annotated_fragment(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(32) {
    // expected-error @+1 {{'tile.fragment' op needs 512 registers per thread, more than the 255 of sm_80: its layout #tile.fragment<[[32:t1], [512:s1]]> gives each of its 32 threads 512 elements of 'f32'}}
    %a = tile.fragment layout(#tile.fragment<[[32:t1], [512:s1]]>) : !tile.fragment<32x512xf32>
    tile.copy %A[%c0, %c0] -> %a : memref<?x?xf32>, !tile.fragment<32x512xf32>
  }
  return
}

// -----

func.func @annotated_loop(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(32) {
    %s = tile.alloc_shared layout(#tile.linear) : memref<64x256xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.parallel' op would unroll its body of 3 ops 16384 times per thread (49152 ops) under its layout #tile.fragment<[[64:s256], [256:s1]], replicate [32:t1]>; the limit is 16384 ops: use more threads or a smaller tile}}
    tile.parallel (%i, %j) in (64, 256) layout(#tile.fragment<[[64:s256], [256:s1]], replicate [32:t1]>) {
      %x = tile.load %s[%i, %j] : memref<64x256xf32, #gpu.address_space<workgroup>>
      %y = arith.mulf %x, %x : f32
      tile.store %y, %s[%i, %j] : memref<64x256xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

// One thread copying a 128 x 160 f16 tile in 16-byte cp.async chunks would
// unroll 2560 rounds per stage: the loop runs unpipelined instead.
// CHECK-LABEL: func.func @pipeline_too_wide
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: scf.for
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: return
func.func @pipeline_too_wide(%A: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%bx) in (1) threads(1) {
    %As = tile.alloc_shared layout(#tile.linear) : memref<128x160xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared layout(#tile.linear) : memref<128x160xf16, #gpu.address_space<workgroup>>
    tile.pipelined %kb = %c0 to %c8 step %c1 stages(2) {
      %k0 = arith.muli %kb, %c8 : index
      tile.copy %A[%k0, %c0] -> %As : memref<?x?xf16>, memref<128x160xf16, #gpu.address_space<workgroup>>
      tile.copy %As -> %Bs : memref<128x160xf16, #gpu.address_space<workgroup>>, memref<128x160xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %Bs -> %C[%c0, %c0] : memref<128x160xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
  }
  return
}

// -----

// The same copy scheduled ahead by hand cannot be honored.
func.func @pipeline_too_wide_scheduled(%A: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tile.kernel grid(%bx) in (1) threads(1) {
    %As = tile.alloc_shared layout(#tile.linear) : memref<128x160xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared layout(#tile.linear) : memref<128x160xf16, #gpu.address_space<workgroup>>
    tile.pipelined %kb = %c0 to %c8 step %c1 stages(2) stage [0, 0, 1] {
      %k0 = arith.muli %kb, %c8 : index
      // expected-error @+1 {{'tile.copy' op is scheduled in pipeline stage 0 of 1, but only global-to-shared copies can run ahead, and it would unroll 5120 rounds of 16-byte copies per thread, more than 512}}
      tile.copy %A[%k0, %c0] -> %As : memref<?x?xf16>, memref<128x160xf16, #gpu.address_space<workgroup>>
      tile.copy %As -> %Bs : memref<128x160xf16, #gpu.address_space<workgroup>>, memref<128x160xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %Bs -> %C[%c0, %c0] : memref<128x160xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
  }
  return
}
