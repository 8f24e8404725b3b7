// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=gfx942 vendor=amd" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=AMD

// A convolution's implicit GEMM: in the pipelined loop the im2col tile is
// a producer (cp.async chunks of 8 f16 channels of one pixel from the
// 4-d image, the source size 0 in the padding), beside the weights' copy;
// the loop keeps off TMA (it moves tile.copy tiles only). The version as
// written gathers with 16-byte vector loads where the image's pixels are
// aligned (C a multiple of 8), else element by element.
// CHECK-LABEL: func.func @conv
// CHECK-NOT: nvgpu.tma.create.descriptor
// CHECK: gpu.launch
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x?x?x?xf16>
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: scf.for
// CHECK: nvgpu.device_async_copy %arg0[
// CHECK: } else {
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?x?x?xf16>, vector<8xf16>
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<?x?x?x?xf16>
// CHECK-NOT: tile.im2col
// On AMD (no cp.async) the im2col tile is gathered in the loop.
// AMD-LABEL: func.func @conv
// AMD: gpu.launch
// AMD: vector.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?x?x?xf16>, vector<8xf16>
// AMD-NOT: tile.im2col
func.func @conv(%img: memref<?x?x?x?xf16>, %w: memref<?x?xf16>, %out: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (1, 8) threads(128) {
    %cols = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %ws = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.pipelined %k = %c0 to %kt step %c1 stages(3) {
      tile.im2col %img[%by, %k] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      %r = arith.muli %k, %c32 : index
      tile.copy %w[%r, 0] -> %ws : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %cols, %ws, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    %row = arith.muli %by, %c64 : index
    tile.copy %acc -> %out[%row, 0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
  }
  return
}

// -----

// Rows of 6 f16 are not whole 16-byte chunks: gathered element by element,
// and not run ahead.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: nvgpu.device_async_copy %arg0
// CHECK-NOT: vector.load %arg0
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<?x?x?x?xf16>
func.func @narrow(%img: memref<?x?x?x?xf16>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (4) threads(32) {
    %cols = tile.alloc_shared : memref<16x6xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %kt step %c1 stages(2) {
      tile.im2col %img[%bx, %k] -> %cols kernel 3 stride 2 dilation 1 padding 0 : memref<?x?x?x?xf16>, memref<16x6xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}

