// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_90a --tile-infer-layouts --convert-tile-to-gpu=deepen-pipelines=false --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="warp-specialize=false tma-store=false deepen-pipelines=false" --canonicalize --cse | FileCheck %s --check-prefix=OFF

// On sm_90a the TMA pipeline of a kernel is warp-specialized: the block
// gets a producer warpgroup after the kernel's 256 threads (384 in all).
// The whole block sets up the stage mbarriers (3 full with one arrival, 3
// empty with one per consumer warp), then splits: the consumers raise
// their registers to 240 and run the kernel, the producer warpgroup lowers
// its own to 24 and its first thread alone fills the stages, computing the
// tiles' origins (bx * 128, from the raster) itself.
// CHECK-LABEL: func.func @gemm
// CHECK: gpu.launch blocks({{.*}}) threads(%[[TID:[^,]*]], {{.*}} in (%{{[^ ]*}} = %c384,
// The accumulator's registers are allocated in the entry block (where
// LLVM promotes them), not in the consumers' branch.
// CHECK-NEXT: memref.alloca() : memref<64xf32>
// CHECK: %[[BARRIERS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 6>
// CHECK-NEXT: gpu.barrier
// CHECK: nvgpu.mbarrier.init %[[BARRIERS]][%c2], %c1
// CHECK-NEXT: nvgpu.mbarrier.init %[[BARRIERS]][%c3], %c8
// CHECK: gpu.barrier
// CHECK-NEXT: %[[CONSUMER:.*]] = arith.cmpi ult, %[[TID]], %c256 : index
// CHECK-NEXT: scf.if %[[CONSUMER]] {
// CHECK-NEXT:   nvvm.setmaxregister  increase 240
// The consumers wait for a stage's bytes, compute, and give the stage of
// the previous iteration back once its wgmma is done (lane 0 of each warp,
// after the warp converges); no copies, no block-wide barrier. Theirs is
// barrier 1 over 256 threads.
// The loop carries the stage it reads (from 0) with its phase, and the
// stage read one iteration earlier (from the last, 2): that one's "empty"
// barrier (stage + 3) is the one given back.
// CHECK:        scf.for %[[KC:[^ ]*]] = %c0 to %{{.*}} step %c1 iter_args(%[[READ:[^ ]*]] = %c0, %[[RPHASE:[^ ]*]] = %false, %[[WRITE:[^ ]*]] = %c2,
// CHECK-NOT:      nvgpu.tma.async.load
// CHECK-NOT:      gpu.barrier
// CHECK:          nvgpu.mbarrier.try_wait.parity %[[BARRIERS]][%[[READ]]], %[[RPHASE]]
// Square policy on wgmma: the warpgroups split M (64x128 each, one
// m64n128k16 per k-step) rather than N (128x64 each, two m64n64k16).
// CHECK:          wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// CHECK:          nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NEXT:     %[[NOTFIRST:.*]] = arith.cmpi ne, %[[KC]], %c0 : index
// CHECK-NEXT:     scf.if %[[NOTFIRST]] {
// CHECK-NEXT:       %[[EMPTY_W:.*]] = arith.addi %[[WRITE]], %c3 : index
// CHECK:          nvvm.bar.warp.sync
// CHECK:          %[[LANE0:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NEXT:     scf.if %[[LANE0]] {
// CHECK-NEXT:       nvgpu.mbarrier.arrive %[[BARRIERS]][%[[EMPTY_W]]]
// CHECK:        nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:   nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// CHECK-NOT:    gpu.barrier
// CHECK:        nvvm.setmaxregister  decrease 24
// CHECK-NEXT:   %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c256 : index
// CHECK-NEXT:   %[[GO:.*]] = arith.andi %[[FIRST]], %{{.*}} : i1
// CHECK-NEXT:   scf.if %[[GO]] {
// CHECK:          %[[M0:.*]] = arith.muli %{{.*}}, %c128 : index
// CHECK:          scf.for %[[K:.*]] = %c0 to %{{.*}} step %c1 iter_args(%[[STAGE:.*]] = %c0, %[[PHASE:.*]] = %false)
// CHECK-NEXT:       %[[PARITY:.*]] = arith.xori %[[PHASE]], %true : i1
// CHECK-NEXT:       %[[EMPTY:.*]] = arith.addi %[[STAGE]], %c3 : index
// CHECK-NEXT:       nvgpu.mbarrier.try_wait.parity %[[BARRIERS]][%[[EMPTY]]], %[[PARITY]]
// CHECK-NEXT:       nvgpu.mbarrier.arrive.expect_tx %[[BARRIERS]][%[[STAGE]]], %c32768
// CHECK:            %[[K0:.*]] = arith.muli %[[K]], %c64 : index
// CHECK:            nvgpu.tma.async.load %{{.*}}[%[[K0]], %[[M0]]], %[[BARRIERS]][%[[STAGE]]]
// CHECK:            nvgpu.tma.async.load
// CHECK:            scf.yield
// OFF-LABEL: func.func @gemm
// OFF: gpu.launch {{.*}} in (%{{[^ ]*}} = %c256,
// OFF-NOT: nvvm.setmaxregister
// OFF-NOT: nvvm.barrier id
// OFF: nvgpu.tma.async.load
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

// -----

// A pipelined loop inside another loop is not specialized (the producer
// would have to follow the outer loop too): the TMA version runs with thread
// 0 filling the stages, on the kernel's own 128 threads. It sets its
// mbarriers up each time it runs, so after it thread 0 invalidates them.
// CHECK-LABEL: func.func @nested
// CHECK: gpu.launch {{.*}} in (%{{[^ ]*}} = %c128,
// CHECK-NOT: nvvm.setmaxregister
// CHECK-NOT: nvvm.barrier id
// CHECK: nvgpu.mbarrier.init
// CHECK: nvgpu.tma.async.load
// CHECK-NOT: nvvm.barrier id
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if
// CHECK-COUNT-4: nvvm.mbarrier.inval
// CHECK-NOT: nvvm.barrier id
func.func @nested(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (4) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    scf.for %t = %c0 to %c2 step %c1 {
      %m0 = arith.muli %t, %c64 : index
      tile.fill %acc, %zero : !tile.fragment<64x64xf32>
      tile.pipelined %kb = %c0 to %kt step %c1 stages(2) {
        %k0 = arith.muli %kb, %c64 : index
        tile.copy %A[%m0, %k0] -> %As : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.copy %B[%k0, 0] -> %Bs : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %Bs, %acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
      }
      tile.copy %acc -> %C[%m0, 0] : !tile.fragment<64x64xf32>, memref<?x?xf32>
    }
  }
  return
}
