// RUN: tile-opt %s --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma,warp-specialize" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=DEFAULT

// With `tma-store`, a fragment stored to a global tensor through shared
// memory is written by bulk tensor stores: the threads write the tile into
// 128-byte swizzled panels (64 f16 wide), fence it into the async proxy,
// meet at a barrier, and thread 0 issues one store per panel, then waits
// until they have read the scratch. The host encodes the destination's map
// (boxes of 128 x 64) where its rows are 16-byte aligned; otherwise the
// threads store 16-byte vectors of the same scratch. Without the feature
// (sm_90a's default) the threads store the vectors.
// DEFAULT-NOT: tma.create.descriptor
// DEFAULT: gpu.launch
// DEFAULT-NOT: tma.async.store
// CHECK-LABEL: func.func @store
// CHECK: %[[READY:.*]] = arith.andi
// CHECK: %[[MAP:.*]] = scf.if %[[READY]] -> (!llvm.ptr) {
// CHECK: nvgpu.tma.create.descriptor %{{.*}} box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK: gpu.launch
// The scratch written (pairs of the f32 accumulator as f16), then fenced.
// CHECK: vector.store %{{.*}} : memref<16384xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[READY]] {
// CHECK-NEXT: %[[LEADER:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK-NEXT: %[[DESC:.*]] = builtin.unrealized_conversion_cast %[[MAP]]
// CHECK-NEXT: %[[BOX0:.*]] = memref.view %{{.*}}[%c0][]
// CHECK-NEXT: nvgpu.tma.async.store %[[BOX0]] to %[[DESC]][%c0, %[[ROW:.*]]] :
// CHECK-NEXT: %[[BOX1:.*]] = memref.view %{{.*}}[%c16384][]
// CHECK-NEXT: nvgpu.tma.async.store %[[BOX1]] to %[[DESC]][%c64, %[[ROW]]] :
// CHECK-NEXT: nvvm.cp.async.bulk.commit.group
// CHECK-NEXT: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: } else {
// CHECK: vector.load {{.*}} vector<8xf16>
// CHECK: vector.store {{.*}} : memref<?x?xf16>, vector<8xf16>
module attributes {tile.target = #tile.target<"sm_90a", features = ["cp.async", "ldmatrix", "mma.sync", "tma", "wgmma", "warp-specialize", "tma-store"]>} {
func.func @store(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
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
}
