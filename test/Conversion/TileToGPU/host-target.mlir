// convert-tile-to-gpu refuses a module whose target is not a GPU.
// RUN: tile-opt %s --verify-diagnostics --tile-attach-target=chip=host --convert-tile-to-gpu

func.func @f() {
  // expected-error @+1 {{'tile.kernel' op cannot be lowered to the GPU for target 'host'; attach a GPU target (tile-attach-target)}}
  tile.kernel grid(%bx) in (1) threads(32) {
  }
  return
}
