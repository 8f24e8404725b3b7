// RUN: tile-opt %s --split-input-file --tile-raster-kernels | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-raster-kernels=panel=0 | FileCheck %s --check-prefix=OFF
// RUN: tile-opt %s --split-input-file --tile-raster-kernels=panel=4 | FileCheck %s --check-prefix=FOUR
// RUN: not tile-opt %s --tile-raster-kernels=panel=-1 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: tile-raster-kernels: panel must be 0 or positive, got -1

// A GEMM over an (N tiles, M tiles) grid: A's tile follows %by, B's %bx.
// CHECK-LABEL: func.func @gemm
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) in (64, 64) threads(256) raster(#tile.raster<8>)
// OFF-LABEL: func.func @gemm
// OFF: tile.kernel grid(%{{.*}}, %{{.*}}) in (64, 64) threads(256) {
// FOUR-LABEL: func.func @gemm
// FOUR: raster(#tile.raster<4>)
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @gemm(%A: memref<8192x8192xf16>, %B: memref<8192x8192xf16>, %C: memref<8192x8192xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (64, 64) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<8192x8192xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<8192x8192xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<8192x8192xf16>
  }
  return
}
}

// -----

// Dynamic grids, the copies in an scf.for, B's origin through an index
// computation: rasterized. A raster of the user's own is kept.
// CHECK-LABEL: func.func @dynamic
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) threads(128) raster(#tile.raster<8>)
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) threads(128) raster(#tile.raster<2, column>)
module attributes {tile.target = #tile.target<"sm_80">} {
func.func @dynamic(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %gm: index, %gn: index, %steps: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%bx, %by) in (%gn, %gm) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    scf.for %k = %c0 to %steps step %c1 {
      %kk = arith.muli %k, %c32 : index
      %m = arith.muli %by, %c64 : index
      %n0 = arith.muli %bx, %c64 : index
      %n = arith.addi %n0, %c0 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
  }
  tile.kernel grid(%bx, %by) in (%gn, %gm) threads(128) raster(#tile.raster<2, column>) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    scf.for %k = %c0 to %steps step %c1 {
      %kk = arith.muli %k, %c32 : index
      %m = arith.muli %by, %c64 : index
      %n = arith.muli %bx, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<?x?xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
  }
  return
}
}

// -----

// Attention over a (query blocks, heads) grid: Q's tile follows both ids,
// K's and V's the head only. Its blocks share K and V along x, and the
// launch order already keeps a head's blocks together: not rasterized.
// CHECK-LABEL: func.func @attention
// CHECK: tile.kernel grid(%{{.*}}, %{{.*}}) in (64, 32) threads(256) {
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @attention(%Q: memref<32x8192x128xf16>, %K: memref<32x8192x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (64, 32) threads(256) {
    %Qs = tile.alloc_shared : memref<1x128x128xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<1x128x128xf16, #gpu.address_space<workgroup>>
    %q0 = arith.muli %bx, %c128 : index
    tile.copy %Q[%by, %q0, %c0] -> %Qs : memref<32x8192x128xf16>, memref<1x128x128xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %c64 step %c1 stages(2) {
      %kk = arith.muli %k, %c128 : index
      tile.copy %K[%by, %kk, %c0] -> %Ks : memref<32x8192x128xf16>, memref<1x128x128xf16, #gpu.address_space<workgroup>>
    }
  }
  return
}
}

// -----

// Not rasterized: a grid whose x is at most the panel, a kernel whose
// blocks may wait on one another (scf.while), one without a gemm, a
// persistent one, a 1-d grid, and any kernel on the CPU.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: raster
// CHECK: return
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @kept(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %flag: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c0_i32 = arith.constant 0 : i32
  tile.kernel grid(%bx, %by) in (8, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
  }
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    scf.while : () -> () {
      %v = memref.load %flag[%c0] : memref<1xi32>
      %wait = arith.cmpi eq, %v, %c0_i32 : i32
      scf.condition(%wait)
    } do {
      scf.yield
    }
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
  }
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
    }
  }
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) persistent {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
  }
  tile.kernel grid(%b) in (1024) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%b, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %c0] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
  }
  return
}
}

// -----

// CHECK-LABEL: func.func @cpu
// CHECK-NOT: raster
// CHECK: return
module attributes {tile.target = #tile.target<"host">} {
func.func @cpu(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
  }
  return
}
}
