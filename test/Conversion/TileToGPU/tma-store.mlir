// RUN: tile-opt %s --tile-attach-target=chip=sm_90a --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="tma-store=false" --canonicalize --cse | FileCheck %s --check-prefix=NOSTORE

// With `tma-store` (a codegen option, on by default), a persistent
// kernel's fragment stored to a global tensor through shared memory is
// written by bulk tensor stores: the threads write the tile into 128-byte
// swizzled panels (64 f16 wide), fence it into the async proxy, meet at a
// barrier, and thread 0 issues one store per panel and commits them. The
// stores are left in flight while the next tile runs: the scratch is the
// copy's alone (apart from the operand buffers, dead by then, that it
// would share otherwise), and thread 0 waits until they have read it
// before the threads write it again and once after the tiles' loop. The
// host encodes the destination's map (boxes of 128 x 64) where its rows
// are 16-byte aligned; otherwise the threads store 16-byte vectors of the
// same scratch.
// CHECK-LABEL: func.func @store
// CHECK: %[[READY:.*]] = arith.andi
// CHECK: %[[MAP:.*]] = scf.if %[[READY]] -> (!llvm.ptr) {
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c65536_i32
// CHECK: scf.for
// CHECK: memref.view %{{.*}}[%c32768][]
// CHECK: %[[SCRATCH:.*]] = memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16384xf16
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// The scratch written (pairs of the f32 accumulator as f16), then fenced.
// CHECK: vector.store %{{.*}}, %[[SCRATCH]][%{{.*}}] {{.*}}: memref<16384xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[READY]] {
// (Thread 0's test is the one before the scratch was written.)
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[MAP]]
// CHECK-NEXT: %[[BOX0:.*]] = memref.view %{{.*}}[%c0][]
// CHECK-NEXT: nvgpu.tma.async.store %[[BOX0]] to %[[DESC]][%c0, %[[ROW:.*]]] :
// CHECK-NEXT: %[[BOX1:.*]] = memref.view %{{.*}}[%c16384][]
// CHECK-NEXT: nvgpu.tma.async.store %[[BOX1]] to %[[DESC]][%c64, %[[ROW]]] :
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: }
// CHECK-NEXT: } else {
// CHECK: vector.load {{.*}} vector<8xf16>
// CHECK: vector.store {{.*}} : memref<?x?xf16>, vector<8xf16>
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NEXT: scf.if %[[LAST]] {
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.terminator
func.func @store(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (4) threads(128) persistent {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %row = arith.muli %bx, %c128 : index
    tile.copy %A[%row, 0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    tile.copy %acc -> %C[%row, 0] : !tile.fragment<128x128xf32>, memref<?x?xf16>
  }
  return
}

// A kernel on the plain grid has no TMA stores (they measured no faster
// there, where the block's end waits for its stores either way): here the
// threads store their elements, as staging would grow the block.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: tma.create.descriptor
// CHECK: gpu.launch
// CHECK-NOT: tma.async.store
// CHECK: memref.store {{.*}} : memref<?x?xf16>
// CHECK-NOT: tma.async.store
// CHECK: return
func.func @plain(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (4) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %row = arith.muli %bx, %c128 : index
    tile.copy %A[%row, 0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    tile.copy %acc -> %C[%row, 0] : !tile.fragment<128x128xf32>, memref<?x?xf16>
  }
  return
}

// Without the feature, neither kernel has a tensor map or a bulk store;
// the persistent one stores 16-byte vectors of its staging scratch.
// NOSTORE-NOT: tma.create.descriptor
// NOSTORE-NOT: tma.async.store
// NOSTORE-LABEL: func.func @store
// NOSTORE-NOT: tma.async.store
// NOSTORE: vector.store {{.*}} : memref<?x?xf16>, vector<8xf16>
// NOSTORE-NOT: tma.async.store
// NOSTORE-LABEL: func.func @plain
// NOSTORE-NOT: tma.async.store
// NOSTORE: memref.store {{.*}} : memref<?x?xf16>
// NOSTORE-NOT: tma.async.store
