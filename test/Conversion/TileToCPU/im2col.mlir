// RUN: tile-opt %s --convert-tile-to-cpu | FileCheck %s --implicit-check-not="tile."

// On the host each element of the column tile is read from its pixel and
// channel, or is 0 in the padding: for q = k * 32 + j, channel q mod C,
// filter column (q / C) mod 3 and row q / (3 C); for m = b * 64 + i, the
// pixel's column m mod OW, with OW = (W + 2 - 2 - 1) / 1 + 1 = W.
// CHECK-LABEL: func.func @im2col
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c64
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c32
// CHECK: %[[M:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK: %[[Q:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK: arith.remui %[[M]], %{{.*}} : index
// CHECK: arith.remui %[[Q]], %{{.*}} : index
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (f16) {
// CHECK:   memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<?x?x?x?xf16>
// CHECK: } else {
// CHECK:   scf.yield %{{.*}} : f16
// CHECK: memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : memref<64x32xf16>
func.func @im2col(%img: memref<?x?x?x?xf16>, %b: index, %k: index) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %cols = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.im2col %img[%b, %k] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
  }
  return
}
