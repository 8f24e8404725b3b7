// RUN: tile-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(tile-raise-ptx-version))" | FileCheck %s

// A module with an op marked as needing PTX 8.1 (the lowering marks the
// inline PTX of vector reductions; any op here, since the AMD fuzzer replays
// these files and its backend cannot assemble NVPTX's inline asm) gets
// +ptx81 in place of +ptx80, and the mark is dropped.
// CHECK-LABEL: gpu.module @vector_red
// CHECK-SAME: #nvvm.target<chip = "sm_90a", features = "+ptx81">
// CHECK: llvm.fadd
// CHECK-NOT: tile.ptx_version
gpu.module @vector_red [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @add(%p: i64, %a: f32, %b: f32) {
    %x = llvm.fadd %a, %b {tile.ptx_version = 81 : i64} : f32
    llvm.return
  }
}

// -----

// A newer version asked for is kept; features without one get it; a module
// without marks keeps its target.
// CHECK-LABEL: gpu.module @newer
// CHECK-SAME: features = "+ptx85"
// CHECK-LABEL: gpu.module @none_asked
// CHECK-SAME: features = "+ptx81"
// CHECK-LABEL: gpu.module @unmarked
// CHECK-SAME: features = "+ptx80"
gpu.module @newer [#nvvm.target<chip = "sm_90a", features = "+ptx85">] {
  llvm.func @add(%p: i64, %a: f32, %b: f32) {
    %x = llvm.fadd %a, %b {tile.ptx_version = 81 : i64} : f32
    llvm.return
  }
}
gpu.module @none_asked [#nvvm.target<chip = "sm_90a">] {
  llvm.func @add(%p: i64, %a: f32, %b: f32) {
    %x = llvm.fadd %a, %b {tile.ptx_version = 81 : i64} : f32
    llvm.return
  }
}
gpu.module @unmarked [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @f() {
    llvm.return
  }
}
