// The register bound is the chip's: 255 on NVIDIA, 512 on CDNA (arch and
// accumulation VGPRs), none on the host CPU, whose lowering does not use
// layouts.
// RUN: not tile-opt %s --tile-attach-target=chip=sm_90a --tile-infer-layouts 2>&1 | FileCheck %s --check-prefix=NVIDIA
// RUN: not tile-opt %s --tile-attach-target=chip=gfx942 --tile-infer-layouts 2>&1 | FileCheck %s --check-prefix=CDNA
// RUN: tile-opt %s --tile-attach-target=chip=host --tile-infer-layouts 2>&1 | FileCheck %s --check-prefix=HOST

// NVIDIA: error: 'tile.fragment' op needs 256 registers per thread, more than the 255 of sm_90a: its layout #tile.fragment<{{\[\[}}64:s4], [64:t1, 4:s1]]> gives each of its 64 threads 256 elements of 'f32'
// CDNA: error: 'tile.fragment' op needs 520 registers per thread, more than the 512 of gfx942: its layout #tile.fragment<{{\[\[}}2:s260, 32:t2], [65:s4, 2:t1, 4:s1]]> gives each of its 64 threads 520 elements of 'f32'
// CDNA-NOT: error
// HOST-NOT: error
// HOST: tile.fragment layout
func.func @registers(%A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.fragment : !tile.fragment<64x256xf32>
    %b = tile.fragment : !tile.fragment<64x520xf32>
    tile.copy %A[%c0, %c0] -> %a : memref<?x?xf32>, !tile.fragment<64x256xf32>
    tile.copy %A[%c0, %c0] -> %b : memref<?x?xf32>, !tile.fragment<64x520xf32>
  }
  return
}
