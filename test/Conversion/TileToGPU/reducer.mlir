// RUN: tile-opt %s --tile-attach-target=chip=sm_90a --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse --split-input-file | FileCheck %s --implicit-check-not=tile.finalize_reducer

// A reducer's slots start at the identity where it is allocated; a fill
// puts its value in copy 0 (threads 0..3 here: the copies' digit is
// thread / 4 % 32) and the identity in the others; the loop adds
// into each thread's copy; finalize combines the 32 copies of each row,
// 8 within a warp by butterfly shuffles (xor 4, 8, 16), 4 across warps
// through shared scratch (128 bytes: 4 x 8 floats), written by the lanes
// whose shuffled digits are 0, and leaves the total in every copy.
// CHECK-LABEL: func.func @rows
// CHECK: threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[SLOTS:.*]] = memref.alloca() : memref<2xf32>
// CHECK: memref.store %[[ZERO:.*]], %[[SLOTS]][%c0] : memref<2xf32>
// CHECK: memref.store %[[ZERO]], %[[SLOTS]][%c1] : memref<2xf32>
// CHECK: %[[Q:.*]] = arith.divui %[[TID]], %c4 : index
// CHECK: %[[COPY:.*]] = arith.remui %[[Q]], %c32 : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[COPY]], %c0 : index
// CHECK: %[[SEED:.*]] = arith.select %[[FIRST]], %{{.*}}, %[[ZERO]] : f32
// CHECK: memref.store %[[SEED]], %[[SLOTS]][%c0] : memref<2xf32>
// CHECK: memref.store %[[SEED]], %[[SLOTS]][%c1] : memref<2xf32>
// CHECK: arith.addf
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: memref.view {{.*}} to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: memref.store {{.*}} : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load {{.*}} : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SLOTS]][%c0] : memref<2xf32>
func.func @rows(%X: memref<8x128xf32>, %R: memref<8xf32>, %seed: f32) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %x = tile.fragment layout(#tile.fragment<[[2:s4, 4:t1], [32:t4, 4:s1]]>) : !tile.fragment<8x128xf32>
    %r = tile.fragment reducer(sum) : !tile.fragment<8xf32>
    tile.fill %r, %seed : !tile.fragment<8xf32>
    tile.copy %X[0, 0] -> %x : memref<8x128xf32>, !tile.fragment<8x128xf32>
    tile.parallel (%i, %j) in (8, 128) {
      %v = tile.load %x[%i, %j] : !tile.fragment<8x128xf32>
      %old = tile.load %r[%i] : !tile.fragment<8xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%i] : !tile.fragment<8xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<8xf32>
    tile.copy %r -> %R[0] : !tile.fragment<8xf32>, memref<8xf32>
  }
  return
}

// -----

// One copy of each element: finalize has nothing to combine; a max reducer
// starts at -inf.
// CHECK-LABEL: func.func @one_copy
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: memref.store %[[NINF]]
// CHECK: arith.maximumf
// CHECK-NOT: gpu.shuffle
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @one_copy(%X: memref<64x32xf32>, %R: memref<64xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %x = tile.fragment : !tile.fragment<64x32xf32>
    %r = tile.fragment reducer(max) layout(#tile.fragment<[[64:t1]]>) : !tile.fragment<64xf32>
    tile.copy %X[0, 0] -> %x : memref<64x32xf32>, !tile.fragment<64x32xf32>
    tile.parallel (%i, %j) in (64, 32) {
      %v = tile.load %x[%i, %j] : !tile.fragment<64x32xf32>
      %old = tile.load %r[%i] : !tile.fragment<64xf32>
      %new = arith.maximumf %old, %v : f32
      tile.store %new, %r[%i] : !tile.fragment<64xf32>
    }
    tile.finalize_reducer %r : !tile.fragment<64xf32>
    tile.copy %r -> %R[0] : !tile.fragment<64xf32>, memref<64xf32>
  }
  return
}
