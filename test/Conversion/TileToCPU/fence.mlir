// RUN: tile-opt %s --convert-tile-to-cpu | FileCheck %s --implicit-check-not=tile.fence

// On the host a fence orders memory for the whole process (the system's
// scope), in a tile.parallel body too.
// CHECK-LABEL: func.func @fences
// CHECK: llvm.fence release
// CHECK-NEXT: memref.atomic_rmw addi
// CHECK-NEXT: llvm.fence acquire
// CHECK: llvm.fence seq_cst
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: memref.atomic_rmw addi
// CHECK-NEXT: llvm.fence acq_rel
func.func @fences(%C: memref<2xi32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  tile.kernel grid(%bx) in (4) threads(32) {
    tile.fence release
    %old = memref.atomic_rmw addi %one, %C[%c0] : (i32, memref<2xi32>) -> i32
    tile.fence acquire
    tile.parallel (%i) in (1) {
      tile.fence seq_cst
      %c1 = arith.constant 1 : index
      %o = memref.atomic_rmw addi %one, %C[%c1] : (i32, memref<2xi32>) -> i32
      tile.fence acq_rel
    }
  }
  return
}
