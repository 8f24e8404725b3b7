// RUN: tile-opt %s --tile-attach-target="chip=sm_90a" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// f16 x f16 into an f16 accumulator takes wgmma's .f16 form: the thread
// holds the same elements of C as with f32, two to a 32-bit register
// (m64n64: 16 registers for 32 elements). They are packed before the fence,
// go through the instruction as "=r" operands, and are unpacked after the
// wait.
// CHECK-LABEL: func.func @acc16
// CHECK: vector.bitcast {{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,0,
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16 {$0, {{.*}}, $15}, {{.*}}"=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,0,
// CHECK-SAME: -> !llvm.struct<(i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32)>
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: vector.bitcast {{.*}} : vector<1xi32> to vector<2xf16>
func.func @acc16(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %C: memref<64x64xf16>) {
  %zero = arith.constant 0.0 : f16
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf16>
    tile.copy %A[0, 0] -> %As : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %Bs : memref<32x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x64xf16>
    tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf16>
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x64xf16>, memref<64x64xf16>
  }
  return
}
