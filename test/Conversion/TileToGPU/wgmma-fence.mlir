// RUN: tile-opt %s --tile-attach-target="chip=sm_90a" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// wgmma.fence orders wgmma's register reads after the instructions that
// wrote those registers. Every register a wgmma reads (the accumulator, A
// when it sits in registers) passes through an empty asm with side effects
// before the fence, so that LLVM cannot define one after it (it did: the
// zeros of a GEMM's first k-step, once constants, came after the fence and
// an H200 computed wrong results).

// CHECK-LABEL: func.func @accumulator
// CHECK: %[[PINNED:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK-NEXT: %[[FIRST:.*]] = llvm.extractvalue %[[PINNED]][0]
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm {{.*}}wgmma.mma_async{{.*}}" %[[FIRST]],
func.func @accumulator(%A: memref<64x32xf16>, %B: memref<64x32xf16>, %C: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.copy %A[0, 0] -> %As : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %Bs : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.gemm %As, %Bs, %acc transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// A in registers (attention's P x V): its 32-bit words are pinned too.
// CHECK-LABEL: func.func @register_a
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,
// CHECK: %[[WORDS:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,{{.*}}"
// CHECK-NEXT: %[[WORD:.*]] = llvm.extractvalue %[[WORDS]][0]
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm {{.*}}wgmma.mma_async{{.*}}" {{.*}}, %[[WORD]],
func.func @register_a(%B: memref<32x64xf16>, %C: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f16
  tile.kernel grid(%bx) in (1) threads(128) {
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %p = tile.fragment : !tile.fragment<64x32xf16>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.copy %B[0, 0] -> %Bs : memref<32x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.fill %p, %half : !tile.fragment<64x32xf16>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.gemm %p, %Bs, %acc : !tile.fragment<64x32xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}
