// RUN: tile-opt %s --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="tma-store=false tma-multicast=true deepen-pipelines=false" --canonicalize --cse | FileCheck %s

// With `tma-multicast` (opt-in), the blocks of a warp-specialized GEMM go in
// clusters of two along x when the grid's x is even (here 4: always). B's
// tile depends on `by` only (and the row raster keeps pairs in one row of
// tiles), so the two blocks share it: of its two 64x64 boxes (one per
// 128-byte swizzle panel) each loads one and multicasts it to both. A's
// tile is each block's own.
// CHECK-LABEL: func.func @gemm
// CHECK: gpu.launch clusters({{.*}}) in (%{{[^ ]*}} = %c2, %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1) blocks
// The pair multicasts when its cluster has two blocks; a stage's empty
// barrier then counts the consumer warps of both blocks (16, else 8). The
// barriers are set up before any block may arrive on the other's.
// CHECK: %[[SIZE:.*]] = nvvm.read.ptx.sreg.cluster.nctarank : i32
// CHECK: %[[MULTICAST:.*]] = arith.cmpi eq, %[[SIZE]], %c2_i32 : i32
// CHECK: %[[RANK:.*]] = nvvm.read.ptx.sreg.cluster.ctarank : i32
// CHECK: %[[PEER:.*]] = arith.xori %[[RANK]], %c1_i32 : i32
// CHECK: %[[EMPTY:.*]] = arith.select %[[MULTICAST]], %c16, %c8 : index
// CHECK: nvgpu.mbarrier.init %{{.*}}[%c3], %[[EMPTY]]
// CHECK: nvvm.fence.mbarrier.init
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// Consumers give a stage back on both blocks' barriers: lane 0 of each warp
// arrives here and, through the cluster's shared window, on the other's.
// CHECK: scf.if %[[MULTICAST]] {
// CHECK-NEXT: %[[ADDRESS:.*]] = nvgpu.mbarrier.get
// CHECK-NEXT: %[[LOCAL:.*]] = llvm.inttoptr %[[ADDRESS]] : i32 to !llvm.ptr<3>
// CHECK-NEXT: %[[REMOTE:.*]] = nvvm.mapa %[[LOCAL]], %[[PEER]] : !llvm.ptr<3> -> !llvm.ptr<7>
// CHECK-NEXT: nvvm.mbarrier.arrive %[[REMOTE]] : !llvm.ptr<7>
// No block leaves while the other may still arrive on its barriers.
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// The producer: A alone, then B's box 0 from rank 0 and box 1 from rank 1,
// multicast to both (mask 0b11), or both boxes when alone.
// CHECK: nvvm.setmaxregister  decrease 24
// CHECK: nvgpu.tma.async.load {{.*}} : <tensor = memref<128x64xf16
// CHECK: scf.if %[[MULTICAST]] {
// CHECK: arith.cmpi eq, %[[RANK]], %c0_i32 : i32
// CHECK: nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16 : <tensor = memref<64x64xf16
// CHECK: arith.cmpi eq, %[[RANK]], %c1_i32 : i32
// CHECK: nvgpu.tma.async.load {{.*}} multicast_mask = %c3_i16
// CHECK: } else {
// CHECK-COUNT-2: nvgpu.tma.async.load {{.*}} : <tensor = memref<64x64xf16
// The producer warpgroup arrives on the cluster barrier as it finishes.
// CHECK: nvvm.cluster.arrive{{$}}
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (4, 4) threads(256) raster(#tile.raster<2, row>) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m0 = arith.muli %bx, %c128 : index
    %n0 = arith.muli %by, %c128 : index
    tile.pipelined %kb = %c0 to %kt step %c1 stages(3) {
      %k0 = arith.muli %kb, %c64 : index
      tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m0, %n0] : !tile.fragment<128x128xf32>, memref<?x?xf32>
  }
  return
}
