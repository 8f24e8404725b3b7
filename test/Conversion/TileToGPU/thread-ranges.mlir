// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_90a --tile-insert-barriers --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,SM90
// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_80 --tile-insert-barriers --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,SM80
// RUN: not tile-opt %s --tile-attach-target=chip=gfx942 --tile-insert-barriers --tile-infer-layouts --convert-tile-to-gpu 2>&1 | FileCheck %s --check-prefix=AMD

// Warp specialization by hand (TileLang's T.ws): a producer warpgroup
// (threads 128-255) copies the tiles, the consumer warpgroup (0-127)
// multiplies them, and two mbarriers hand each step over.
// CHECK-LABEL: func.func @producer_consumer
// The barriers are made by thread 0, then the whole block waits.
// CHECK: %[[BARS:.*]] = nvgpu.mbarrier.create -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 2>
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: nvgpu.mbarrier.init %[[BARS]][%c0], %c128
// CHECK-NEXT: nvgpu.mbarrier.init %[[BARS]][%c1], %c128
// SM90-NEXT: nvvm.fence.proxy
// SM80-NOT: nvvm.fence.proxy
// CHECK: gpu.barrier
// The accumulator is the consumers': a range of 128 threads fills it.
// CHECK: %[[CONSUMERS:.*]] = arith.cmpi ult, %[[TID:.*]], %c128 : index
// CHECK: scf.for
// The producers' branch: threads 128 and up, counted from 0 inside.
// CHECK: %[[PRODUCERS:.*]] = arith.cmpi uge, %[[TID]], %c128 : index
// CHECK-NEXT: scf.if %[[PRODUCERS]] {
// CHECK-NEXT: arith.subi %[[TID]], %c128
// SM90: nvgpu.mbarrier.try_wait.parity %[[BARS]][%c1]
// SM80: scf.while
// SM80: nvvm.mbarrier.test.wait
// On sm_90 the producers' first thread loads A's tile by TMA, its bytes
// counted on the barrier, where the host found the tensor aligned...
// SM90: nvvm.mbarrier.expect_tx %{{.*}}, %c16384_i32
// SM90: builtin.unrealized_conversion_cast
// SM90-NEXT: nvgpu.tma.async.load %{{.*}}, %[[BARS]][%c0] to
// ... else (and on sm_80) the range's threads copy, synchronizing the range
// alone: named barrier 2, 128 threads.
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %{{.*}}
// CHECK: nvgpu.mbarrier.arrive %[[BARS]][%c0]
// CHECK: scf.if %[[CONSUMERS]] {
// SM90: nvgpu.mbarrier.try_wait.parity %[[BARS]][%c0]
// SM90: wgmma.mma_async
// SM80: nvgpu.mma.sync
// CHECK: nvgpu.mbarrier.arrive %[[BARS]][%c1]
// AMD: error: 'tile.alloc_barrier' op is not supported on AMD GPUs yet: thread ranges and barriers (TileLang's T.ws, T.alloc_barrier) are lowered on NVIDIA GPUs and the CPU
func.func @producer_consumer(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %nk: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (4, 4) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %bars = tile.alloc_barrier [128, 128] : !tile.barrier<2>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.thread_range 0 to 128 {
      %zero = arith.constant 0.0 : f32
      tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    }
    scf.for %k = %c0 to %nk step %c1 {
      %kk = arith.muli %k, %c64 : index
      %next = arith.addi %k, %c1 : index
      tile.thread_range 128 to 256 {
        tile.barrier_wait %bars[%c1], %next : !tile.barrier<2>
        tile.copy %A[%m, %kk] -> %As barrier(%bars[%c0]) : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.barrier<2>
        tile.copy %B[%kk, %n] -> %Bs barrier(%bars[%c0]) : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.barrier<2>
        tile.barrier_arrive %bars[%c0] : !tile.barrier<2>
      }
      tile.thread_range 0 to 128 {
        tile.barrier_wait %bars[%c0], %k : !tile.barrier<2>
        tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
        tile.barrier_arrive %bars[%c1] : !tile.barrier<2>
      }
    }
    tile.thread_range 0 to 128 {
      tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<?x?xf16>
    }
  }
  return
}
