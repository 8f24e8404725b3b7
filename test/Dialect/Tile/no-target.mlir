// Layout inference and the GPU lowering need the module's target.
// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-infer-layouts
// RUN: tile-opt %s --split-input-file --verify-diagnostics --convert-tile-to-gpu

func.func @f() {
  // expected-error @+1 {{'tile.kernel' op has no target: give the module a `tile.target` attribute (tile-attach-target, e.g. --tile-attach-target=chip=sm_90a)}}
  tile.kernel grid(%bx) in (1) threads(32) {
  }
  return
}
