// RUN: tile-opt %s --convert-tile-to-cpu --split-input-file | FileCheck %s --implicit-check-not="tile."

// The grid becomes an scf.parallel over blocks, each block's buffers
// allocas in an alloca scope; shared memrefs lose their memory space.
// CHECK-LABEL: func.func @kernel_and_buffers
// CHECK: scf.parallel (%[[BX:.+]], %[[BY:.+]]) = (%{{.+}}, %{{.+}}) to (%{{.+}}, %{{.+}}) step
// CHECK:   memref.alloca_scope {
// CHECK:     memref.alloca() {alignment = 64 : i64} : memref<64x32xf16>
// CHECK:     memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
func.func @kernel_and_buffers(%n: index) {
  tile.kernel grid(%bx, %by) in (4, %n) threads(128) {
    %s = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x64xf32>
  }
  return
}

// -----

// Rasterization: block ids are computed from the launch index.
// CHECK-LABEL: func.func @raster
// CHECK: scf.parallel (%[[X:.+]], %[[Y:.+]]) =
// CHECK:   %[[L:.+]] = arith.addi %[[X]], %{{.+}} : index
// CHECK:   arith.divui %[[L]]
// CHECK:   arith.remui %[[L]]
// CHECK:   arith.minui
func.func @raster() {
  tile.kernel grid(%bx, %by) in (8, 16) threads(32) raster(#tile.raster<4>) {
    %f = tile.fragment : !tile.fragment<1xi32>
  }
  return
}

// -----

// Reads from a global tensor are guarded (pad outside), writes dropped
// outside; tile-local buffers are accessed directly. Types convert.
// CHECK-LABEL: func.func @copies
// CHECK-SAME: (%[[G:.+]]: memref<?x?xf16>, %[[O:.+]]: memref<?x?xf32>, %[[I:.+]]: index)
// CHECK: %[[S:.+]] = memref.alloca() {{.*}} : memref<16x8xf16>
// CHECK: scf.for %[[R:.+]] =
// CHECK:   scf.for %[[C:.+]] =
// CHECK:     %[[GR:.+]] = arith.addi %[[I]], %[[R]]
// CHECK:     memref.dim %[[G]]
// CHECK:     arith.cmpi ult, %[[GR]]
// CHECK:     %[[V:.+]] = scf.if %{{.+}} -> (f16) {
// CHECK:       memref.load %[[G]]
// CHECK:     } else {
// CHECK:       %[[PAD:.+]] = arith.constant 1.000000e+00 : f16
// CHECK:       scf.yield %[[PAD]]
// CHECK:     memref.store %[[V]], %[[S]][%[[R]], %[[C]]]
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     %[[X:.+]] = memref.load %[[S]]
// CHECK:     %[[W:.+]] = arith.extf %[[X]] : f16 to f32
// CHECK:     scf.if %{{.+}} {
// CHECK:       memref.store %[[W]], %[[O]]
func.func @copies(%G: memref<?x?xf16>, %O: memref<?x?xf32>, %i: index) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %s = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
    tile.copy %G[%i, 0] -> %s {pad = 1.0 : f16} : memref<?x?xf16>, memref<16x8xf16, #gpu.address_space<workgroup>>
    tile.copy %s -> %O[%i, 0] : memref<16x8xf16, #gpu.address_space<workgroup>>, memref<?x?xf32>
  }
  return
}

// -----

// A gemm is a loop nest of fused multiply-adds in the accumulator's type;
// clear_accum zeroes it first.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[C:.+]] = memref.alloca() {{.*}} : memref<16x8xf32>
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     memref.store %{{.+}}, %[[C]]
// CHECK: scf.for %[[I:.+]] = %{{.+}} to %c16
// CHECK:   scf.for %[[K:.+]] = %{{.+}} to %c32
// CHECK:     scf.for %[[J:.+]] = %{{.+}} to %c8
// CHECK:       %[[A:.+]] = memref.load %{{.+}}[%[[I]], %[[K]]] : memref<16x32xf16>
// CHECK:       %[[B:.+]] = memref.load %{{.+}}[%[[K]], %[[J]]] : memref<32x8xf16>
// CHECK:       %[[ACC:.+]] = memref.load %[[C]][%[[I]], %[[J]]]
// CHECK:       %[[AF:.+]] = arith.extf %[[A]] : f16 to f32
// CHECK:       %[[BF:.+]] = arith.extf %[[B]] : f16 to f32
// CHECK:       %[[R:.+]] = math.fma %[[AF]], %[[BF]], %[[ACC]] : f32
// CHECK:       memref.store %[[R]], %[[C]][%[[I]], %[[J]]]
func.func @gemm() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x8xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x8xf32>
    tile.gemm %a, %b, %c clear_accum : memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x8xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x8xf32>
  }
  return
}

// -----

// Reductions start from the kind's identity (0 for absmax, since |x| >= 0);
// with clear = false the result is merged into what the destination holds.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %{{.+}} = {{.*}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32)
// CHECK:   %[[X:.+]] = memref.load
// CHECK:   %[[ABS:.+]] = math.absf %[[X]]
// CHECK:   arith.maximumf %[[ACC]], %[[ABS]]
// CHECK: %[[OLD:.+]] = memref.load
// CHECK: arith.maximumf %[[OLD]]
func.func @reduce() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<4x8xf32>
    %r = tile.fragment : !tile.fragment<4xf32>
    tile.reduce absmax %s -> %r dim 1 {clear = false} : !tile.fragment<4x8xf32>, !tile.fragment<4xf32>
  }
  return
}

// -----

// Parallel bodies are loop nests; element access to a global tensor is
// guarded, to fragments direct. Pipelined loops run as written.
// CHECK-LABEL: func.func @loops
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %{{.+}} {
// CHECK:   scf.for %[[I:.+]] =
// CHECK:     scf.for %[[J:.+]] =
// CHECK:       %[[X:.+]] = memref.load %{{.+}}[%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK:       %[[Y:.+]] = math.exp %[[X]]
// CHECK:       scf.if
// CHECK:         memref.store %[[Y]], %{{.+}}[%[[I]], %[[K]]] : memref<?x?xf32>
func.func @loops(%G: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %f = tile.fragment : !tile.fragment<4x8xf32>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      tile.parallel (%i, %j) in (4, 8) {
        %x = tile.load %f[%i, %j] : !tile.fragment<4x8xf32>
        %y = math.exp %x : f32
        tile.store %y, %G[%i, %k] : memref<?x?xf32>
      }
    }
  }
  return
}

// -----

// Atomic adds become memref.atomic_rmw, guarded at the tensor's edge.
// CHECK-LABEL: func.func @atomics
// CHECK: scf.if
// CHECK:   memref.atomic_rmw addf
// CHECK: scf.for
// CHECK:   arith.addf
func.func @atomics(%G: memref<?xf32>) {
  tile.kernel grid(%bx) in (2) threads(32) {
    %f = tile.fragment : !tile.fragment<16xf32>
    tile.atomic_add %f -> %G[0] : !tile.fragment<16xf32>, memref<?xf32>
    tile.cumsum %f -> %f dim 0 reverse : !tile.fragment<16xf32>, !tile.fragment<16xf32>
  }
  return
}
