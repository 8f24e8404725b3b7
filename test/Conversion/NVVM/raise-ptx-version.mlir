// RUN: tile-opt %s --split-input-file --pass-pipeline="builtin.module(gpu.module(tile-raise-ptx-version))" | FileCheck %s

// A module whose inline PTX needs PTX 8.1 (vector red) gets +ptx81 in place
// of +ptx80, and the mark is dropped.
// CHECK-LABEL: gpu.module @vector_red
// CHECK-SAME: #nvvm.target<chip = "sm_90a", features = "+ptx81">
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.v2.f32
// CHECK-NOT: tile.ptx_version
gpu.module @vector_red [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @add(%p: i64, %a: f32, %b: f32) {
    llvm.inline_asm has_side_effects asm_dialect = att {tile.ptx_version = 81 : i64} "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f,~{memory}" %p, %a, %b : (i64, f32, f32) -> ()
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
    llvm.inline_asm has_side_effects asm_dialect = att {tile.ptx_version = 81 : i64} "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f,~{memory}" %p, %a, %b : (i64, f32, f32) -> ()
    llvm.return
  }
}
gpu.module @none_asked [#nvvm.target<chip = "sm_90a">] {
  llvm.func @add(%p: i64, %a: f32, %b: f32) {
    llvm.inline_asm has_side_effects asm_dialect = att {tile.ptx_version = 81 : i64} "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f,~{memory}" %p, %a, %b : (i64, f32, f32) -> ()
    llvm.return
  }
}
gpu.module @unmarked [#nvvm.target<chip = "sm_90a", features = "+ptx80">] {
  llvm.func @f() {
    llvm.return
  }
}
