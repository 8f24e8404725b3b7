// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu | FileCheck %s --check-prefixes=CHECK,NV --implicit-check-not=tile.fence
// RUN: tile-opt %s --tile-attach-target=chip=gfx942 --tile-infer-layouts --convert-tile-to-gpu | FileCheck %s --check-prefixes=CHECK,AMD --implicit-check-not=tile.fence

// A fence is an LLVM fence of its order at the device's scope (NVPTX's
// "device", PTX's .gpu; AMDGPU's "agent"), in a tile.parallel body too,
// where each iteration a thread runs has its own.
// CHECK-LABEL: func.func @fences
// NV: llvm.fence syncscope("device") release
// AMD: llvm.fence syncscope("agent") release
// CHECK-NEXT: memref.atomic_rmw addi
// NV-NEXT: llvm.fence syncscope("device") acquire
// AMD-NEXT: llvm.fence syncscope("agent") acquire
// NV: llvm.fence syncscope("device") seq_cst
// AMD: llvm.fence syncscope("agent") seq_cst
// CHECK: memref.atomic_rmw addi
// NV-NEXT: llvm.fence syncscope("device") acq_rel
// AMD-NEXT: llvm.fence syncscope("agent") acq_rel
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
