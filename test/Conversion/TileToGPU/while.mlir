// RUN: tile-opt %s --tile-attach-target="chip=sm_80" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// Tile ops in an scf.while (TileLang's `while` over a run-time condition,
// stream-K's loop over its share of K iterations) are lowered in place,
// and a pipelined loop there is pipelined: its tile origin, computed in i32
// from a variable and cast to index, is a multiple of the chunk where the
// factor is (the cast keeps the value), so the cp.async version is taken.
// CHECK-LABEL: func.func @stream
// CHECK: gpu.launch
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: } do {
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: nvgpu.mma.sync
// CHECK: memref.atomic_rmw addf
func.func @stream(%A: memref<256x256xf16>, %C: memref<64x64xf32>, %first: i32, %last: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0i = arith.constant 0 : i32
  %c4i = arith.constant 4 : i32
  %c32i = arith.constant 32 : i32
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    %it = memref.alloca() : memref<1xi32>
    memref.store %first, %it[%c0] : memref<1xi32>
    scf.while : () -> () {
      %i = memref.load %it[%c0] : memref<1xi32>
      %more = arith.cmpi slt, %i, %last : i32
      scf.condition(%more)
    } do {
      %i = memref.load %it[%c0] : memref<1xi32>
      %end = arith.addi %i, %c4i : i32
      %n32 = arith.subi %end, %i : i32
      %n = arith.index_cast %n32 : i32 to index
      tile.fill %acc, %zero : !tile.fragment<64x64xf32>
      tile.pipelined %k = %c0 to %n step %c1 stages(2) {
        %k32 = arith.index_cast %k : index to i32
        %kk = arith.addi %i, %k32 : i32
        %col32 = arith.muli %kk, %c32i : i32
        %col = arith.index_cast %col32 : i32 to index
        tile.copy %A[0, %col] -> %As : memref<256x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
        tile.gemm %As, %As, %acc transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
      }
      tile.parallel (%r, %c) in (64, 64) {
        %v = tile.load %acc[%r, %c] : !tile.fragment<64x64xf32>
        %old = memref.atomic_rmw addf %v, %C[%r, %c] : (f32, memref<64x64xf32>) -> f32
      }
      memref.store %end, %it[%c0] : memref<1xi32>
      scf.yield
    }
  }
  return
}
