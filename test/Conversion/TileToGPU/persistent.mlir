// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_90a --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="warp-specialize=false tma-store=false" --canonicalize --cse | FileCheck %s --check-prefix=NOWS
// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="tma-store=false tma-multicast=true" --canonicalize --cse | FileCheck %s --check-prefix=MULTICAST

// A kernel marked persistent: the host launches min(tiles,
// multiprocessors) blocks along x (the runtime's count); each walks the
// tiles t = block, block + blocks, ... (the block count passed in, as AMD
// reads the grid's size through ROCm's device library) and takes the
// tile's ids from t (x fastest, then the raster). The stages' mbarriers are set up once; the
// epilogue's staging scratch, from which sm_90a's TMA stores go
// (tma-store.mlir), is apart from the stages (164864 bytes: 3 x 32 KB of
// stages + 64 KB of 128-byte panels + the mbarriers' room, where a lone
// kernel overlaps them).
// CHECK-LABEL: func.func private @tileGpuMultiprocessorCount() -> i32
// CHECK-LABEL: func.func @gemm
// CHECK:      %[[TILES:.*]] = arith.muli %[[GM:.*]], %c4 : index
// CHECK-NEXT: %[[SMS:.*]] = call @tileGpuMultiprocessorCount() : () -> i32
// CHECK-NEXT: %[[SMSI:.*]] = arith.index_castui %[[SMS]] : i32 to index
// CHECK-NEXT: %[[BLOCKS:.*]] = arith.minui %[[TILES]], %[[SMSI]] : index
// CHECK-NEXT: gpu.launch blocks(%[[BX:[^,]*]], %{{[^,]*}}, %{{[^)]*}}) in (%{{[^ ]*}} = %[[BLOCKS]], %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1) threads(%[[TID:[^,]*]], {{.*}} in (%{{[^ ]*}} = %c384, {{.*}} dynamic_shared_memory_size %c164864_i32
// The consumers' place in the stages' ring, in registers (an alloca of
// the entry block), starts at stage 0 (giving back stage 2 first), phases
// 0.
// CHECK:      %[[STATE:.*]] = memref.alloca() : memref<4xindex>
// CHECK:      nvgpu.mbarrier.create
// CHECK:      memref.store %c0, %[[STATE]][%c0]
// CHECK-NEXT: memref.store %c0, %[[STATE]][%c1]
// CHECK-NEXT: memref.store %c2, %[[STATE]][%c2]
// CHECK-NEXT: memref.store %c0, %[[STATE]][%c3]
// CHECK:      scf.if
// CHECK-NEXT:   nvvm.setmaxregister  increase 240
// CHECK-NEXT:   scf.for %[[T:.*]] = %[[BX]] to %[[TILES]] step %[[BLOCKS]] {
// CHECK-NEXT:     arith.remui %[[T]], %[[GM]] : index
// CHECK-NEXT:     arith.divui %[[T]], %[[GM]] : index
// The thread id is read per tile (LLVM keeps what derives from it inside).
// CHECK:          llvm.inline_asm has_side_effects "mov.u32 $0, %tid.x;", "=r"  : () -> i32
// The tile's loop starts where the last one left the ring ...
// CHECK:          %[[R0:.*]] = memref.load %[[STATE]][%c0]
// CHECK:          %[[RAN:.*]] = arith.cmpi sgt, %{{.*}}, %c0 : index
// CHECK:          scf.for %{{.*}} iter_args(%{{.*}} = %[[R0]],
// CHECK:            nvgpu.mbarrier.try_wait.parity
// CHECK:            wgmma.mma_async
// ... gives the last stage it read back too, once its wgmma is done (a
// lone kernel never does: nothing waits for it), and leaves the ring's
// place for the next tile.
// CHECK:          nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NEXT:     scf.if %[[RAN]] {
// CHECK:            nvgpu.mbarrier.arrive
// CHECK:          arith.select %[[RAN]]
// CHECK-NEXT:     memref.store %{{.*}}, %[[STATE]][%c0]
// CHECK:          memref.store %{{.*}}, %[[STATE]][%c3]
// CHECK-NEXT:     nvvm.barrier id = %c1_i32 number_of_threads = %c256_i32
// The producer walks the same tiles, its (stage, phase) going on from one
// tile's loop to the next.
// CHECK:        nvvm.setmaxregister  decrease 24
// CHECK-NEXT:   %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c256 : index
// CHECK:        scf.for %[[PT:.*]] = %[[BX]] to %[[TILES]] step %[[BLOCKS]] iter_args(%[[PS:.*]] = %c0, %[[PP:.*]] = %false) -> (index, i1) {
// CHECK-NEXT:     arith.remui %[[PT]], %[[GM]] : index
// CHECK:          %[[FILLS:.*]]:2 = scf.for %{{.*}} iter_args(%{{.*}} = %[[PS]], %{{.*}} = %[[PP]]) -> (index, i1) {
// CHECK:            nvgpu.tma.async.load
// CHECK:          scf.yield %[[FILLS]]#0, %[[FILLS]]#1 : index, i1

// Without warp specialization the TMA loop runs in each tile as in a lone
// kernel, setting its mbarriers up each time: they are invalidated after
// it.
// NOWS-LABEL: func.func @gemm
// NOWS:       gpu.launch {{.*}} threads({{.*}} in (%{{[^ ]*}} = %c256,
// NOWS:       scf.for
// NOWS:         nvgpu.mbarrier.init
// NOWS:         nvgpu.tma.async.load
// NOWS:         gpu.barrier
// NOWS-COUNT-6: nvvm.mbarrier.inval

// A persistent kernel's blocks are not paired in clusters (they walk tiles
// on their own): no multicast.
// MULTICAST-LABEL: func.func @gemm
// MULTICAST-NOT: nvvm.mapa
// MULTICAST-NOT: nvvm.cluster
// MULTICAST: return
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index, %gm: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (%gm, 4) threads(256) raster(#tile.raster<2, row>) persistent {
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

// A one-dimensional persistent kernel without a pipeline: the body in the
// tiles' loop, the tile id used as it is.
// CHECK-LABEL: func.func @scale
// CHECK:      %[[SMS:.*]] = call @tileGpuMultiprocessorCount()
// CHECK:      gpu.launch blocks(%[[BX:[^,]*]], %{{[^,]*}}, %{{[^)]*}}) in (%{{[^ ]*}} = %[[NB:[^,]*]], %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1)
// CHECK:        scf.for %[[T:.*]] = %[[BX]] to %[[N:[^ ]*]] step %[[NB]] {
// CHECK:          arith.muli %[[T]], %c64
func.func @scale(%X: memref<?xf32>, %n: index) {
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%bx) in (%n) threads(64) persistent {
    %x = tile.fragment : !tile.fragment<64xf32>
    %i0 = arith.muli %bx, %c64 : index
    tile.copy %X[%i0] -> %x : memref<?xf32>, !tile.fragment<64xf32>
    tile.parallel (%i) in (64) {
      %v = tile.load %x[%i] : !tile.fragment<64xf32>
      %w = arith.mulf %v, %two : f32
      tile.store %w, %x[%i] : !tile.fragment<64xf32>
    }
    tile.copy %x -> %X[%i0] : !tile.fragment<64xf32>, memref<?xf32>
  }
  return
}
