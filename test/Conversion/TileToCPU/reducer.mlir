// RUN: tile-opt %s --convert-tile-to-cpu | FileCheck %s --implicit-check-not="tile."

// On the host one buffer holds a reducer and its updates run in order: it
// starts at the identity in each block (where its allocation was, the
// buffer itself made once before the loop over blocks), a fill sets its
// start, the loop's updates add into it, and finalize has nothing to do.
// CHECK-LABEL: func.func @rows
// CHECK: %[[R:.*]] = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK: scf.for
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for %[[I:.*]] =
// CHECK: memref.store %[[NINF]], %[[R]][%[[I]]] : memref<4xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[OLD:.*]] = memref.load %[[R]]
// CHECK: %[[NEW:.*]] = arith.maximumf %[[OLD]], %{{.*}} : f32
// CHECK: memref.store %[[NEW]], %[[R]]
func.func @rows(%X: memref<4x8xf32>, %R: memref<4xf32>) {
  tile.kernel grid(%bx) in (3) threads(32) {
    %r = tile.fragment reducer(max) : !tile.fragment<4xf32>
    tile.parallel (%i, %j) in (4, 8) {
      %v = tile.load %X[%i, %j] : memref<4x8xf32>
      %old = tile.load %r[%i] : !tile.fragment<4xf32>
      %new = arith.maximumf %old, %v : f32
      tile.store %new, %r[%i] : !tile.fragment<4xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<4xf32>
    tile.copy %r -> %R[0] : !tile.fragment<4xf32>, memref<4xf32>
  }
  return
}
