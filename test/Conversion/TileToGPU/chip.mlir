// convert-tile-to-gpu refuses a chip it does not know.
// RUN: not tile-opt %s --convert-tile-to-gpu=chip=sm_1 2>&1 | FileCheck %s
// CHECK: error: convert-tile-to-gpu needs a GPU chip, got 'sm_1'; expected one of

func.func @empty() {
  return
}
