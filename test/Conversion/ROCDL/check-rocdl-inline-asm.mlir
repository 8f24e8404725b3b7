// RUN: tile-opt %s --split-input-file --verify-diagnostics --pass-pipeline="builtin.module(gpu.module(tile-check-rocdl-inline-asm))" | FileCheck %s

// AMDGPU's register classes, an explicit register, a tied operand, an
// immediate on a constant and clobbers pass.
// CHECK-LABEL: gpu.module @accepted
gpu.module @accepted {
  llvm.func @f(%a: i32, %b: f32) -> i32 {
    %c = llvm.mlir.constant(7 : i32) : i32
    %r = llvm.inline_asm has_side_effects "v_add_u32 $0, $1, $2 ; $3 $4 $5", "=v,v,s,i,{v4},0,~{memory},~{vcc}" %a, %a, %c, %b, %a : (i32, i32, i32, f32, i32) -> i32
    %s = llvm.inline_asm "s_mov_b32 $0, $1", "=s,r|a" %a : (i32) -> i32
    llvm.inline_asm has_side_effects "s_nop 0", "" : () -> ()
    %e = llvm.inline_asm "v_mov_b32 $0, 0", "=&v" : () -> i32
    llvm.return %r : i32
  }
}

// -----

// NVPTX's 64-bit register constraint, from a kernel written for NVIDIA.
gpu.module @nvptx_asm {
  llvm.func @add(%p: i64, %a: f32, %b: f32) {
    // expected-error @below {{inline asm constraint 'l' is not one the AMDGPU backend takes}}
    llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f,~{memory}" %p, %a, %b : (i64, f32, f32) -> ()
    llvm.return
  }
}

// -----

// An output with NVPTX's f32 class.
gpu.module @nvptx_output {
  llvm.func @f(%a: f32) -> f32 {
    // expected-error @below {{inline asm constraint 'f' is not one the AMDGPU backend takes}}
    %r = llvm.inline_asm "mov.f32 $0, $1;", "=f,v" %a : (f32) -> f32
    llvm.return %r : f32
  }
}

// -----

// A memory operand, which the backend cannot match.
gpu.module @memory {
  llvm.func @f(%p: !llvm.ptr) {
    // expected-error @below {{inline asm constraint 'm' is not one the AMDGPU backend takes}}
    llvm.inline_asm has_side_effects "; $0", "m" %p : (!llvm.ptr) -> ()
    llvm.return
  }
}

// -----

// An immediate constraint on a run-time value.
gpu.module @immediate {
  llvm.func @f(%a: i32) {
    // expected-error @below {{inline asm constraint 'i' asks for an immediate, but the operand is no constant}}
    llvm.inline_asm has_side_effects "; $0", "i" %a : (i32) -> ()
    llvm.return
  }
}
