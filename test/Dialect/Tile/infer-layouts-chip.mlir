// RUN: not tile-opt %s --tile-infer-layouts=chip=sm_5 2>&1 | FileCheck %s

// CHECK: error: unknown chip 'sm_5'; expected one of sm_70 .. sm_120 (sm_90a for Hopper features), gfx9xx (gfx90a, gfx942), gfx10xx-gfx12xx, host
func.func @f() {
  return
}
