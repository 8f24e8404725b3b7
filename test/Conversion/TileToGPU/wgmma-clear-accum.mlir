// RUN: tile-opt %s --tile-attach-target="chip=sm_90a" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A wgmma gemm with clear_accum clears C through the instruction's scale-d
// flag: the first k-step (of two here) does not read the accumulator
// (scale-d 0, its inputs left undefined), the next ones accumulate
// (scale-d 1); no zeros are written into C's registers first.
// CHECK-LABEL: func.func @clear
// CHECK: %[[UNDEF:.*]] = llvm.mlir.poison : f32
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async{{.*}}"=f,{{.*}}" %[[UNDEF]], %[[UNDEF]], {{.*}}, %c0_i32 :
// CHECK: llvm.inline_asm {{.*}}wgmma.mma_async{{.*}}, %c1_i32 :
// CHECK-NOT: wgmma.mma_async
func.func @clear(%A: memref<64x32xf16>, %B: memref<64x32xf16>, %C: memref<64x64xf32>) {
  %seven = arith.constant 7.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.copy %A[0, 0] -> %As : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %Bs : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %seven : !tile.fragment<64x64xf32>
    tile.gemm %As, %Bs, %acc transpose_b clear_accum : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}
