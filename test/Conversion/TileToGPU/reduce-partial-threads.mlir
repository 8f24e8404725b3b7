// RUN: tile-opt %s --tile-attach-target=chip=sm_90a --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A reduction across threads that go through shared scratch (a thread digit
// of size 5 cannot shuffle) on a layout that uses 60 of the block's 64
// threads: only the 60 holders write partials, so the 4 idle threads
// cannot overwrite one.
// CHECK-LABEL: func.func @rows
// CHECK: threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in
// CHECK: memref.view {{.*}} to memref<60xf32, #gpu.address_space<workgroup>>
// CHECK: %[[HOLDS:.*]] = arith.cmpi ult, %[[TID]], %c60 : index
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if %[[HOLDS]] {
// CHECK-NEXT: memref.store {{.*}} : memref<60xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
func.func @rows(%X: memref<12x20xf32>, %R: memref<12xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.fragment layout(#tile.fragment<[[12:t5], [5:t1, 4:s1]]>) : !tile.fragment<12x20xf32>
    %rows = tile.fragment layout(#tile.fragment<[[12:t5]], replicate [5:t1]>) : !tile.fragment<12xf32>
    tile.copy %X[0, 0] -> %x : memref<12x20xf32>, !tile.fragment<12x20xf32>
    tile.reduce sum %x -> %rows dim 1 : !tile.fragment<12x20xf32>, !tile.fragment<12xf32>
    tile.copy %rows -> %R[0] : !tile.fragment<12xf32>, memref<12xf32>
  }
  return
}
