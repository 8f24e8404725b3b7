// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a" | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync" | FileCheck %s --check-prefix=RESTRICTED
// RUN: not tile-opt %s --split-input-file --tile-attach-target=chip=sm_5 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=wgmma,dma" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_80 features=wgmma" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90 features=cp.async,ldmatrix,mma.sync,tma" | FileCheck %s --check-prefix=LISTED
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=tma,wgmma,warp-specialize,tma-multicast" | FileCheck %s --check-prefix=MULTICAST
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_90 features=tma,tma-multicast" 2>&1 | FileCheck %s --check-prefix=NOMULTICAST
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=tma,wgmma,warp-specialize,tma-store" | FileCheck %s --check-prefix=TMASTORE
// RUN: not tile-opt %s --split-input-file --tile-attach-target="chip=sm_90 features=tma,tma-store" 2>&1 | FileCheck %s --check-prefix=NOTMASTORE

// tile-attach-target sets the module's target, replacing one it had.
// CHECK: module attributes {tile.target = #tile.target<"sm_90a">}
// RESTRICTED: module attributes {tile.target = #tile.target<"sm_90a", features = ["cp.async", "ldmatrix", "mma.sync"]>}
// CHIP: error: unknown chip 'sm_5'; expected one of sm_70 .. sm_120 (sm_90a for Hopper features), gfx9xx (gfx90a, gfx942, gfx950), gfx10xx-gfx12xx, host
// UNKNOWN: error: unknown feature 'dma'; expected cp.async, ldmatrix, mma.sync, tma, wgmma, mfma, warp-specialize, tma-multicast or tma-store
// MISSING: error: feature 'wgmma' does not exist on sm_80
// TMA pipelines are on by default on sm_90a only; other sm_90+ chips may
// list them.
// TMA multicast is opt-in on sm_90a (not among its defaults), and needs
// sm_90a.
// MULTICAST: module attributes {tile.target = #tile.target<"sm_90a", features = ["tma", "wgmma", "warp-specialize", "tma-multicast"]>}
// NOMULTICAST: error: feature 'tma-multicast' does not exist on sm_90
// TMA stores are among sm_90a's defaults (applied to persistent kernels),
// and need sm_90a.
// TMASTORE: module attributes {tile.target = #tile.target<"sm_90a", features = ["tma", "wgmma", "warp-specialize", "tma-store"]>}
// NOTMASTORE: error: feature 'tma-store' does not exist on sm_90
// LISTED: module attributes {tile.target = #tile.target<"sm_90", features = ["cp.async", "ldmatrix", "mma.sync", "tma"]>}
module attributes {tile.target = #tile.target<"sm_80">} {
}
