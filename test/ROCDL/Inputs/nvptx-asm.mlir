// A kernel whose body holds NVIDIA's inline PTX (a vector reduction), as a
// user's llvm.inline_asm would; tile-to-rocdl refuses it by its
// constraints (test/ROCDL/invalid.test).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add(%p: i64, %a: f32, %b: f32) kernel {
      // NVPTX: $0 a 64-bit address ("l"), $1 and $2 f32 registers ("f").
      // The vector reduction of sm_90:
    llvm.inline_asm has_side_effects asm_dialect = att "red.global.add.v2.f32 [$0], {$1, $2};", "l,f,f,~{memory}" %p, %a, %b : (i64, f32, f32) -> ()
      gpu.return
    }
  }
}
