// RUN: tile-opt %s --convert-tile-to-cpu --split-input-file | FileCheck %s --implicit-check-not="tile."
// RUN: tile-opt %s --convert-tile-to-cpu=openmp=1 --split-input-file | FileCheck %s --check-prefix=OMP --implicit-check-not="tile."

// The grid becomes one loop over its blocks (dim 0 fastest); the buffers a
// block uses are allocated once, before it, and every block reuses them, so
// the stack does not grow with the grid. Shared memrefs lose their memory
// space.
// CHECK-LABEL: func.func @kernel_and_buffers
// CHECK-SAME: (%[[N:.+]]: index)
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[BLOCKS:.+]] = arith.muli %[[C4]], %[[N]] : index
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x32xf16>
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK: scf.for %[[B:.+]] = %{{.+}} to %[[BLOCKS]] step
// CHECK:   arith.remui %[[B]], %[[C4]] : index
// CHECK:   arith.divui %[[B]], %[[C4]] : index
// CHECK-NOT: memref.alloca
// With OpenMP, each thread of an omp.parallel allocates the buffers once and
// takes blocks from a dynamically scheduled worksharing loop, one at a time;
// the thread count is the JIT's (tileCpuThreadCount).
// OMP-LABEL: func.func @kernel_and_buffers
// OMP: %[[BLOCKS:.+]] = arith.muli
// OMP: %[[THREADS:.+]] = call @tileCpuThreadCount() : () -> i32
// OMP: omp.parallel num_threads(%[[THREADS]] : i32) {
// OMP:   memref.alloca() {alignment = 64 : i64} : memref<64x32xf16>
// OMP:   memref.alloca() {alignment = 64 : i64} : memref<64x64xf32>
// OMP:   %[[COUNT:.+]] = arith.index_cast %[[BLOCKS]] : index to i64
// OMP:   omp.wsloop schedule(dynamic = %[[ONE:.+]] : i64) {
// OMP:     omp.loop_nest (%[[B:.+]]) : i64 = (%{{.+}}) to (%[[COUNT]]) step (%[[ONE]]) {
// OMP:       arith.index_cast %[[B]] : i64 to index
// OMP:       omp.yield
// OMP:   omp.terminator
// OMP: func.func private @tileCpuThreadCount() -> i32
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
// CHECK: scf.for %[[B:.+]] =
// CHECK:   %[[X:.+]] = arith.remui %[[B]], %[[C8:.+]] : index
// CHECK:   %[[Y:.+]] = arith.divui %[[B]], %[[C8]] : index
// CHECK:   %[[YW:.+]] = arith.muli %[[Y]], %[[C8]]
// CHECK:   %[[L:.+]] = arith.addi %[[X]], %[[YW]] : index
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
// CHECK: scf.for
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
// CHECK: scf.for
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

// Every reduce kind starts from its identity and combines with its own op:
// sum from 0 with addf, max from -inf with maximumf, min from +inf with
// minimumf, abssum from 0 adding |x|. With clear (the default) the result
// is stored as is, the destination not read. The loops run over the reduced
// dim (8 for dim 1, 4 for dim 0) for each kept index.
// CHECK-LABEL: func.func @reduce_kinds
// CHECK: %[[SRC:.+]] = memref.alloca() {{.*}} : memref<4x8xf32>
// CHECK: %[[ROWS:.+]] = memref.alloca() {{.*}} : memref<4xf32>
// CHECK: %[[COLS:.+]] = memref.alloca() {{.*}} : memref<8xf32>
// CHECK: scf.for %[[I:[^ ]+]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK-NEXT: %[[ID:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[RES:.+]] = scf.for %[[K:[^ ]+]] = %c0{{[_0-9]*}} to %c8{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (f32) {
// CHECK-NEXT: %[[X:.+]] = memref.load %[[SRC]][%[[I]], %[[K]]]
// CHECK-NEXT: %[[Y:.+]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[RES]], %[[ROWS]][%[[I]]]
// CHECK: scf.for %[[I:[^ ]+]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK-NEXT: %[[ID:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[RES:.+]] = scf.for %[[K:[^ ]+]] = %c0{{[_0-9]*}} to %c8{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (f32) {
// CHECK-NEXT: %[[X:.+]] = memref.load %[[SRC]][%[[I]], %[[K]]]
// CHECK-NEXT: %[[Y:.+]] = arith.maximumf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[RES]], %[[ROWS]][%[[I]]]
// CHECK: scf.for %[[J:[^ ]+]] = %c0{{[_0-9]*}} to %c8{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK-NEXT: %[[ID:.+]] = arith.constant 0x7F800000 : f32
// CHECK: %[[RES:.+]] = scf.for %[[K:[^ ]+]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (f32) {
// CHECK-NEXT: %[[X:.+]] = memref.load %[[SRC]][%[[K]], %[[J]]]
// CHECK-NEXT: %[[Y:.+]] = arith.minimumf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[RES]], %[[COLS]][%[[J]]]
// CHECK: scf.for %[[J:[^ ]+]] = %c0{{[_0-9]*}} to %c8{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK-NEXT: %[[ID:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[RES:.+]] = scf.for %[[K:[^ ]+]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (f32) {
// CHECK-NEXT: %[[X:.+]] = memref.load %[[SRC]][%[[K]], %[[J]]]
// CHECK-NEXT: %[[A:.+]] = math.absf %[[X]] : f32
// CHECK-NEXT: %[[Y:.+]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT: scf.yield %[[Y]]
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[RES]], %[[COLS]][%[[J]]]
func.func @reduce_kinds() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<4x8xf32>
    %r = tile.fragment : !tile.fragment<4xf32>
    %c = tile.fragment : !tile.fragment<8xf32>
    tile.reduce sum %s -> %r dim 1 : !tile.fragment<4x8xf32>, !tile.fragment<4xf32>
    tile.reduce max %s -> %r dim 1 : !tile.fragment<4x8xf32>, !tile.fragment<4xf32>
    tile.reduce min %s -> %c dim 0 : !tile.fragment<4x8xf32>, !tile.fragment<8xf32>
    tile.reduce abssum %s -> %c dim 0 : !tile.fragment<4x8xf32>, !tile.fragment<8xf32>
  }
  return
}

// -----

// Integer reductions: max from the smallest i32 with maxsi, min from the
// largest with minsi, absmax from 0 with absi and maxsi.
// CHECK-LABEL: func.func @reduce_int
// CHECK: %[[ID:.+]] = arith.constant -2147483648 : i32
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (i32) {
// CHECK-NEXT: %[[X:.+]] = memref.load
// CHECK-NEXT: arith.maxsi %[[ACC]], %[[X]] : i32
// CHECK: %[[ID:.+]] = arith.constant 2147483647 : i32
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (i32) {
// CHECK-NEXT: %[[X:.+]] = memref.load
// CHECK-NEXT: arith.minsi %[[ACC]], %[[X]] : i32
// CHECK: %[[ID:.+]] = arith.constant 0 : i32
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[ID]]) -> (i32) {
// CHECK-NEXT: %[[X:.+]] = memref.load
// CHECK-NEXT: %[[A:.+]] = math.absi %[[X]] : i32
// CHECK-NEXT: arith.maxsi %[[ACC]], %[[A]] : i32
func.func @reduce_int() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<4x8xi32>
    %r = tile.fragment : !tile.fragment<4xi32>
    tile.reduce max %s -> %r dim 1 : !tile.fragment<4x8xi32>, !tile.fragment<4xi32>
    tile.reduce min %s -> %r dim 1 : !tile.fragment<4x8xi32>, !tile.fragment<4xi32>
    tile.reduce absmax %s -> %r dim 1 : !tile.fragment<4x8xi32>, !tile.fragment<4xi32>
  }
  return
}

// -----

// A prefix sum runs along its dim from a zero sum, storing each running sum
// where it read the element: forward from index 0 up, reverse from the last
// index (15 - j) down.
// CHECK-LABEL: func.func @cumsum
// CHECK: %[[SRC:.+]] = memref.alloca() {{.*}} : memref<4x16xf32>
// CHECK: %[[DST:.+]] = memref.alloca() {{.*}} : memref<4x16xf32>
// CHECK: scf.for %[[I:[^ ]+]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.for %[[J:[^ ]+]] = %c0{{[_0-9]*}} to %c16{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[X:.+]] = memref.load %[[SRC]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: memref.store %[[S]], %[[DST]][%[[I]], %[[J]]]
// CHECK-NEXT: scf.yield %[[S]]
// CHECK: scf.for %[[I:[^ ]+]] = %c0{{[_0-9]*}} to %c4{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[LAST:.+]] = arith.constant 15 : index
// CHECK: scf.for %[[J:[^ ]+]] = %c0{{[_0-9]*}} to %c16{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK-NEXT: %[[AT:.+]] = arith.subi %[[LAST]], %[[J]] : index
// CHECK-NEXT: %[[X:.+]] = memref.load %[[SRC]][%[[I]], %[[AT]]]
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: memref.store %[[S]], %[[DST]][%[[I]], %[[AT]]]
// CHECK-NEXT: scf.yield %[[S]]
func.func @cumsum() {
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<4x16xf32>
    %g = tile.fragment : !tile.fragment<4x16xf32>
    tile.cumsum %f -> %g dim 1 : !tile.fragment<4x16xf32>, !tile.fragment<4x16xf32>
    tile.cumsum %f -> %g dim 1 reverse : !tile.fragment<4x16xf32>, !tile.fragment<4x16xf32>
  }
  return
}

// -----

// Atomic adds become memref.atomic_rmw, guarded at the tensor's edge.
// CHECK-LABEL: func.func @atomics
// CHECK-SAME: (%[[G:.+]]: memref<?xf32>)
// CHECK: %[[F:.+]] = memref.alloca() {{.*}} : memref<16xf32>
// CHECK: scf.for %[[I:[^ ]+]] = %c0{{[_0-9]*}} to %c16{{[_0-9]*}} step %c1{{[_0-9]*}} {
// CHECK-NEXT: %[[AT:.+]] = arith.addi %{{.+}}, %[[I]] : index
// CHECK: %[[N:.+]] = memref.dim %[[G]]
// CHECK-NEXT: %[[IN:.+]] = arith.cmpi ult, %[[AT]], %[[N]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[V:.+]] = memref.load %[[F]][%[[I]]]
// CHECK-NEXT: memref.atomic_rmw addf %[[V]], %[[G]][%[[AT]]]
func.func @atomics(%G: memref<?xf32>) {
  tile.kernel grid(%bx) in (2) threads(32) {
    %f = tile.fragment : !tile.fragment<16xf32>
    tile.atomic_add %f -> %G[0] : !tile.fragment<16xf32>, memref<?xf32>
  }
  return
}
