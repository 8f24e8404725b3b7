// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_80 --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_80 --tile-infer-layouts=explain -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// A copy between fragments moves each element in registers where both
// layouts keep it on one thread (here: the mma.sync accumulator to the
// f16 operand with the same owners), converting on the way: f32 to f16
// two slots at a time (one cvt.rn.f16x2.f32 on NVIDIA).
// CHECK-LABEL: func.func @in_thread
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-2: arith.truncf {{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-NOT: arith.truncf
// CHECK: gpu.terminator
// EXPLAIN: fragment-copies.mlir:[[@LINE+6]]:5: remark: moves elements through registers of each thread
func.func @in_thread(%X: memref<16x8xf32>, %Y: memref<16x8xf16>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %b = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf16>
    tile.copy %X[0, 0] -> %a : memref<16x8xf32>, !tile.fragment<16x8xf32>
    tile.copy %a -> %b : !tile.fragment<16x8xf32>, !tile.fragment<16x8xf16>
    tile.copy %b -> %Y[0, 0] : !tile.fragment<16x8xf16>, memref<16x8xf16>
  }
  return
}

// -----

// Where elements change lanes within a warp, each destination slot is one
// `shuffle idx` from the lane that holds it (f16 travels as f32). Element
// (r, c) is on thread (r % 8) * 4 + c / 2 of %a and (r % 8) + (c / 2) * 8 of
// %b: slot 0 of thread T reads lane (T % 8) * 4 + T / 8.
// CHECK-LABEL: func.func @in_warp
// CHECK-NOT: gpu.barrier
// CHECK: threads(%[[TX:[^,]+]],
// CHECK: %[[LO:.*]] = arith.remui %[[TX]], %c8
// CHECK-NEXT: %[[HI:.*]] = arith.divui %[[TX]], %c8
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[HI]], %c2
// CHECK-NEXT: %[[ROW:.*]] = arith.remui %[[LO]], %c8
// CHECK-NEXT: %[[ROW4:.*]] = arith.muli %[[ROW]], %c4
// CHECK-NEXT: %[[PAIR:.*]] = arith.divui %[[COL]], %c2
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[ROW4]], %[[PAIR]]
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[SUM]], %c32
// CHECK-NEXT: %[[LANE32:.*]] = arith.index_castui %[[LANE]] : index to i32
// CHECK-NEXT: %[[V:.*]] = arith.extf
// CHECK-NEXT: gpu.shuffle  idx %[[V]], %[[LANE32]], %c32_i32 : f32
// CHECK-COUNT-3: gpu.shuffle idx {{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.terminator
// EXPLAIN: fragment-copies.mlir:[[@LINE+6]]:5: remark: moves elements through warp shuffles: the two layouts put elements on different lanes of a warp
func.func @in_warp(%X: memref<16x8xf16>, %Y: memref<16x8xf16>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf16>
    %b = tile.fragment layout(#tile.fragment<[[2:s2, 8:t1], [4:t8, 2:s1]]>) : !tile.fragment<16x8xf16>
    tile.copy %X[0, 0] -> %a : memref<16x8xf16>, !tile.fragment<16x8xf16>
    tile.copy %a -> %b : !tile.fragment<16x8xf16>, !tile.fragment<16x8xf16>
    tile.copy %b -> %Y[0, 0] : !tile.fragment<16x8xf16>, memref<16x8xf16>
  }
  return
}

// -----

// Elements that change warps (here: the rows of warp 0 spread over two
// warps, and a replica on the second warp) go through shared scratch: the
// launch reserves it, a barrier precedes the writes and separates them from
// the reads.
// CHECK-LABEL: func.func @across_warps
// The scratch rows are padded by 16 bytes: 15 * 12 + 8 f32.
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %c752_i32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.barrier
// CHECK-COUNT-2: vector.store {{.*}} : memref<188xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK-NOT: vector.store {{.*}}workgroup
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}} : memref<188xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: gpu.terminator
// EXPLAIN: fragment-copies.mlir:[[@LINE+6]]:5: remark: moves elements through shared memory: the two layouts put elements in different warps
func.func @across_warps(%X: memref<16x8xf32>, %Y: memref<16x8xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %b = tile.fragment layout(#tile.fragment<[[2:t32, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    tile.copy %X[0, 0] -> %a : memref<16x8xf32>, !tile.fragment<16x8xf32>
    tile.copy %a -> %b : !tile.fragment<16x8xf32>, !tile.fragment<16x8xf32>
    tile.copy %b -> %Y[0, 0] : !tile.fragment<16x8xf32>, memref<16x8xf32>
  }
  return
}
