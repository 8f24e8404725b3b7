// RUN: tile-opt %s --pass-pipeline="builtin.module(gpu.module(tile-math-to-nvvm-intrinsics))" | FileCheck %s

// f32 exp2 that allows approximate functions is one ex2.approx.ftz.f32;
// without `afn`, or on other types, it is left to convert-gpu-to-nvvm.
gpu.module @kernels {
  // CHECK-LABEL: func.func @fast
  // CHECK-NEXT: %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"(%arg0) : (f32) -> f32
  // CHECK-NEXT: return %[[E]]
  func.func @fast(%x: f32) -> f32 {
    %e = math.exp2 %x fastmath<afn> : f32
    return %e : f32
  }
  // CHECK-LABEL: func.func @fast_with_others
  // CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz"
  func.func @fast_with_others(%x: f32) -> f32 {
    %e = math.exp2 %x fastmath<nnan,afn,contract> : f32
    return %e : f32
  }
  // CHECK-LABEL: func.func @precise
  // CHECK-NEXT: math.exp2 %arg0 : f32
  func.func @precise(%x: f32) -> f32 {
    %e = math.exp2 %x : f32
    return %e : f32
  }
  // CHECK-LABEL: func.func @other_types
  // CHECK-NEXT: math.exp2 %arg0 fastmath<afn> : f64
  // CHECK-NEXT: math.exp2 %arg1 fastmath<afn> : f16
  func.func @other_types(%x: f64, %y: f16) -> (f64, f16) {
    %e = math.exp2 %x fastmath<afn> : f64
    %f = math.exp2 %y fastmath<afn> : f16
    return %e, %f : f64, f16
  }
}
