// RUN: tile-opt %s --tile-attach-target="chip=sm_80" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --verify-diagnostics --tile-attach-target="chip=gfx942 vendor=amd" --tile-infer-layouts --convert-tile-to-gpu

// Scheduled by hand (`stage`), an im2col in the early stage runs ahead as
// the loop's producer where the target has cp.async; AMD's register
// pipeline moves tile.copy tiles only, so there the schedule is an error.
// CHECK-LABEL: func.func @scheduled
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?x?x?xf16>
func.func @scheduled(%img: memref<?x?x?x?xf16>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (4) threads(128) {
    %cols = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x32xf16>
    tile.pipelined %k = %c0 to %kt step %c1 stages(2) stage [0, 1] {
      // expected-error @+1 {{'tile.im2col' op is scheduled in pipeline stage 0 of 1, but only global-to-shared copies can run ahead, and the target has no cp.async to gather with}}
      tile.im2col %img[%bx, %k] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %cols -> %f : memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x32xf16>
    }
  }
  return
}
