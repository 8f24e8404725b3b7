// RUN: tile-opt %s --tile-attach-target=chip=sm_90a --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=SM80

// A split-K epilogue: each thread's run of a fragment's row is added to a
// global f32 tensor. On sm_90 a run goes by vector reductions (PTX 8.1's
// red.global.add.v4.f32, marked for tile-raise-ptx-version), where the
// whole vector is inside the tensor and its rows are 16-byte aligned;
// elsewhere element by element. On sm_80, atomics one element at a time.
// CHECK-LABEL: func.func @split_k_epilogue
// CHECK: scf.if
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att {tile.ptx_version = 81 : i64} "red.global.add.v4.f32 [$0], {$1, $2, $3, $4};", "l,f,f,f,f,~{memory}"
// CHECK: memref.atomic_rmw addf
// SM80-LABEL: func.func @split_k_epilogue
// SM80-NOT: llvm.inline_asm
// SM80: memref.atomic_rmw addf
func.func @split_k_epilogue(%C: memref<200x136xf32>) {
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx, %by) in (3, 4) threads(128) {
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %one : !tile.fragment<64x64xf32>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.parallel (%i, %j) in (64, 64) {
      %r = arith.addi %m, %i : index
      %c = arith.addi %n, %j : index
      %v = tile.load %acc[%i, %j] : !tile.fragment<64x64xf32>
      %old = memref.atomic_rmw addf %v, %C[%r, %c] : (f32, memref<200x136xf32>) -> f32
    }
  }
  return
}
