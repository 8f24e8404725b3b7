// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="tma-store=false deepen-pipelines=false" --canonicalize --cse | FileCheck %s

// FlashAttention-3's intra-warpgroup overlap (PipelinePlan::deferredGemm):
// in a warp-specialized loop of three stages whose body ends [..., G1,
// ..., W, R, G2] (W the first op after G1 that touches G2's operands, here
// the copy of S into P; R the accumulator's rescale), R and G2 of
// iteration j - 1 run right after G1 of iteration j. wait_group 1 then
// waits for G1 alone and the softmax runs while G2 does. W, a copy of G1's
// result into G2's A, moves to the start of the next iteration (before the
// wait for its stage); G2 of iteration j - 1 is waited for (and its stage
// given back, from the second iteration of the loop on) at the start of
// iteration j + 1, before W, so nothing of the body follows that wait.
// Iteration 0 is peeled (it has no G2 to issue); after the loop come the
// wait for the G2 in flight, the last W, R and G2 and the release of its
// stage.
// CHECK-LABEL: func.func @attention
// CHECK: scf.if
// CHECK:   nvgpu.mbarrier.try_wait.parity %[[BARRIERS:.*]][%c0], %false
// CHECK-NOT: arith.truncf
// CHECK:   nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT: nvgpu.mbarrier.arrive
// CHECK-NOT: arith.truncf
// CHECK: scf.for %{{.*}} = %c1 to {{.*}} iter_args({{.*}}, %[[PREV:.*]] = %c0, %[[HAVE:.*]] = %false)
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:   scf.if %[[HAVE]] {
// CHECK:     nvgpu.mbarrier.arrive
// CHECK:   arith.truncf
// CHECK:   nvgpu.mbarrier.try_wait.parity
// CHECK:   nvvm.wgmma.commit.group.sync.aligned
// CHECK:   arith.mulf
// CHECK:   nvvm.wgmma.commit.group.sync.aligned
// CHECK:   nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:   arith.maximumf
// CHECK-NOT: nvvm.wgmma.wait.group
// CHECK-NOT: nvgpu.mbarrier.arrive
// CHECK:   scf.yield {{.*}}, %true
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: scf.if
// CHECK:   nvgpu.mbarrier.arrive
// CHECK: scf.if
// CHECK:   arith.truncf
// CHECK:   arith.mulf
// CHECK:   nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK:   nvgpu.mbarrier.arrive
func.func @attention(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %seq = memref.dim %Q, %c0 : memref<?x64xf16>
  %blocks = arith.ceildivui %seq, %c128 : index
  tile.kernel grid(%bx) in (%blocks) threads(256) {
    %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<128x128xf32>
    %P = tile.fragment : !tile.fragment<128x128xf16>
    %acc = tile.fragment : !tile.fragment<128x64xf32>
    %m = tile.fragment : !tile.fragment<128xf32>
    %q0 = arith.muli %bx, %c128 : index
    tile.copy %Q[%q0, 0] -> %Qs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<128x64xf32>
    tile.pipelined %j = %c0 to %blocks step %c1 stages(3) {
      %k0 = arith.muli %j, %c128 : index
      tile.copy %K[%k0, 0] -> %Ks : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, 0] -> %Vs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : !tile.fragment<128x128xf32>
      tile.gemm %Qs, %Ks, %S transpose_b policy full_row : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
      tile.reduce max %S -> %m dim 1 : !tile.fragment<128x128xf32>, !tile.fragment<128xf32>
      tile.copy %S -> %P : !tile.fragment<128x128xf32>, !tile.fragment<128x128xf16>
      tile.parallel (%r, %c) in (128, 64) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<128x64xf32>
        %a = tile.load %m[%r] : !tile.fragment<128xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<128x64xf32>
      }
      tile.gemm %P, %Vs, %acc policy full_row : !tile.fragment<128x128xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
    }
    tile.copy %acc -> %O[%q0, 0] : !tile.fragment<128x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// The first gemm may clear its accumulator (clear_accum: wgmma's scale-d
// flag); the second accumulates across iterations and is still deferred.
// CHECK-LABEL: func.func @attention_clear_accum
// CHECK: scf.for
// CHECK:   %c0_i32 :
// CHECK:   nvvm.wgmma.commit.group.sync.aligned
// CHECK:   nvvm.wgmma.commit.group.sync.aligned
// CHECK:   nvvm.wgmma.wait.group.sync.aligned 1
func.func @attention_clear_accum(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %seq = memref.dim %Q, %c0 : memref<?x64xf16>
  %blocks = arith.ceildivui %seq, %c128 : index
  tile.kernel grid(%bx) in (%blocks) threads(256) {
    %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<128x128xf32>
    %P = tile.fragment : !tile.fragment<128x128xf16>
    %acc = tile.fragment : !tile.fragment<128x64xf32>
    %m = tile.fragment : !tile.fragment<128xf32>
    %q0 = arith.muli %bx, %c128 : index
    tile.copy %Q[%q0, 0] -> %Qs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<128x64xf32>
    tile.pipelined %j = %c0 to %blocks step %c1 stages(3) {
      %k0 = arith.muli %j, %c128 : index
      tile.copy %K[%k0, 0] -> %Ks : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, 0] -> %Vs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %Qs, %Ks, %S transpose_b clear_accum policy full_row : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
      tile.reduce max %S -> %m dim 1 : !tile.fragment<128x128xf32>, !tile.fragment<128xf32>
      tile.copy %S -> %P : !tile.fragment<128x128xf32>, !tile.fragment<128x128xf16>
      tile.parallel (%r, %c) in (128, 64) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<128x64xf32>
        %a = tile.load %m[%r] : !tile.fragment<128xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<128x64xf32>
      }
      tile.gemm %P, %Vs, %acc policy full_row : !tile.fragment<128x128xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
    }
    tile.copy %acc -> %O[%q0, 0] : !tile.fragment<128x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// With two stages the stage would come back too late for the producer:
// the gemms are issued and waited for in their own iteration.
// CHECK-LABEL: func.func @two_stages
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: return
func.func @two_stages(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %seq = memref.dim %Q, %c0 : memref<?x64xf16>
  %blocks = arith.ceildivui %seq, %c128 : index
  tile.kernel grid(%bx) in (%blocks) threads(256) {
    %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<128x128xf32>
    %P = tile.fragment : !tile.fragment<128x128xf16>
    %acc = tile.fragment : !tile.fragment<128x64xf32>
    %m = tile.fragment : !tile.fragment<128xf32>
    %q0 = arith.muli %bx, %c128 : index
    tile.copy %Q[%q0, 0] -> %Qs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<128x64xf32>
    tile.pipelined %j = %c0 to %blocks step %c1 stages(2) {
      %k0 = arith.muli %j, %c128 : index
      tile.copy %K[%k0, 0] -> %Ks : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, 0] -> %Vs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : !tile.fragment<128x128xf32>
      tile.gemm %Qs, %Ks, %S transpose_b policy full_row : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
      tile.reduce max %S -> %m dim 1 : !tile.fragment<128x128xf32>, !tile.fragment<128xf32>
      tile.copy %S -> %P : !tile.fragment<128x128xf32>, !tile.fragment<128x128xf16>
      tile.parallel (%r, %c) in (128, 64) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<128x64xf32>
        %a = tile.load %m[%r] : !tile.fragment<128xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<128x64xf32>
      }
      tile.gemm %P, %Vs, %acc policy full_row : !tile.fragment<128x128xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
    }
    tile.copy %acc -> %O[%q0, 0] : !tile.fragment<128x64xf32>, memref<?x64xf32>
  }
  return
}

// -----

// A shared A operand that a pipelined copy fills after G1: the copy is the
// producer warpgroup's, not an op of the body to wait before or to move;
// G2 reads both of its operands at the previous stage.
// CHECK-LABEL: func.func @shared_a_filled_late
// CHECK: scf.for %{{.*}} = %c1 to
// CHECK:   nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:   nvvm.wgmma.wait.group.sync.aligned 0
func.func @shared_a_filled_late(%Q: memref<?x64xf16>, %K: memref<?x64xf16>, %V: memref<?x64xf16>, %O: memref<?x64xf32>, %W: memref<?x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %seq = memref.dim %Q, %c0 : memref<?x64xf16>
  %blocks = arith.ceildivui %seq, %c128 : index
  tile.kernel grid(%bx) in (%blocks) threads(256) {
    %Qs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<128x128xf32>
    %Ps = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x64xf32>
    %m = tile.fragment : !tile.fragment<128xf32>
    %q0 = arith.muli %bx, %c128 : index
    tile.copy %Q[%q0, 0] -> %Qs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<128x64xf32>
    tile.pipelined %j = %c0 to %blocks step %c1 stages(3) {
      %k0 = arith.muli %j, %c128 : index
      tile.copy %K[%k0, 0] -> %Ks : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %V[%k0, 0] -> %Vs : memref<?x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.fill %S, %zero : !tile.fragment<128x128xf32>
      tile.gemm %Qs, %Ks, %S transpose_b policy full_row : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
      tile.reduce max %S -> %m dim 1 : !tile.fragment<128x128xf32>, !tile.fragment<128xf32>
      tile.copy %W[%k0, 0] -> %Ps : memref<?x128xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.parallel (%r, %c) in (128, 64) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<128x64xf32>
        %a = tile.load %m[%r] : !tile.fragment<128xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<128x64xf32>
      }
      tile.gemm %Ps, %Vs, %acc policy full_row : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
    }
    tile.copy %acc -> %O[%q0, 0] : !tile.fragment<128x64xf32>, memref<?x64xf32>
  }
  return
}
