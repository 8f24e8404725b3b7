// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a" | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync" | FileCheck %s --check-prefix=RESTRICTED
// RUN: not tile-opt %s --split-input-file --tile-attach-target=chip=sm_5 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=wgmma,dma" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_80 features=wgmma" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90 features=cp.async,ldmatrix,mma.sync,tma" | FileCheck %s --check-prefix=LISTED
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=tma,wgmma,warp-specialize" 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=tma,tma-multicast" 2>&1 | FileCheck %s --check-prefix=MULTICAST
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=tma,tma-store" 2>&1 | FileCheck %s --check-prefix=TMASTORE

// tile-attach-target sets the module's target, replacing one it had.
// CHECK: module attributes {tile.target = #tile.target<"sm_90a">}
// RESTRICTED: module attributes {tile.target = #tile.target<"sm_90a", features = ["cp.async", "ldmatrix", "mma.sync"]>}
// CHIP: error: unknown chip 'sm_5'; expected one of sm_70 .. sm_120 (sm_90a for Hopper features), gfx9xx (gfx90a, gfx942, gfx950), gfx10xx-gfx12xx, host
// UNKNOWN: error: unknown feature 'dma'; expected cp.async, ldmatrix, mma.sync, tma, wgmma or mfma
// MISSING: error: feature 'wgmma' does not exist on sm_80
// TMA pipelines are on by default on sm_90a only; other sm_90+ chips may
// list them.
// Warp specialization, TMA stores and TMA multicast are not features of a
// chip but what the lowering chooses to build from them: options of
// convert-tile-to-gpu (test/Conversion/TileToGPU/warp-specialize.mlir,
// tma-store.mlir, tma-multicast.mlir), named as such when listed here.
// POLICY: error: 'warp-specialize' is not a feature of the chip but a code generation option: convert-tile-to-gpu's (and tile-to-nvvm's) warp-specialize=true|false
// MULTICAST: error: 'tma-multicast' is not a feature of the chip but a code generation option: convert-tile-to-gpu's (and tile-to-nvvm's) tma-multicast=true|false
// TMASTORE: error: 'tma-store' is not a feature of the chip but a code generation option: convert-tile-to-gpu's (and tile-to-nvvm's) tma-store=true|false
// LISTED: module attributes {tile.target = #tile.target<"sm_90", features = ["cp.async", "ldmatrix", "mma.sync", "tma"]>}
module attributes {tile.target = #tile.target<"sm_80">} {
}
