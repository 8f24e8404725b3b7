// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_80" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// A dequantizing pipeline (TileLang's W4A16 GEMM, small): the packed
// weights' copy starts at k * 32 / 2 bytes, a multiple of 16 where k * 32
// is one of 32, so it runs ahead by cp.async like A's; the T.Parallel's
// scale per group of 128 along K, read from global memory each step, is
// loaded one iteration early (before the loop for the first) and carried.
// CHECK-LABEL: func.func @dequant
// CHECK: nvgpu.device_async_copy %arg1
// CHECK: %[[FIRST:.*]] = scf.if %{{.*}} -> (f16) {
// CHECK-NEXT: memref.load %arg2
// CHECK: scf.for %[[K:.*]] = %c0 to %c8 step %c1 iter_args(%{{[^ ]*}} = %c0, %{{[^ ]*}} = %c2, %[[CUR:[^ ]*]] = %[[FIRST]],
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[K]], %c1
// CHECK-NEXT: arith.cmpi slt, %[[NEXT]], %c8
// CHECK: %[[PREFETCHED:.*]] = scf.if %{{.*}} -> (f16) {
// CHECK-NEXT: memref.load %arg2
// CHECK: vector.broadcast %[[CUR]] : f16 to vector<16xf16>
// CHECK: scf.yield %{{[^ ]*}}, %{{[^ ]*}}, %[[PREFETCHED]],
func.func @dequant(%A: memref<256x256xf16>, %B: memref<256x128xi8>, %S: memref<256x2xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (4, 4) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<64x16xi8, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<256x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      %kh = arith.floordivsi %kk, %c2 : index
      tile.copy %B[%n, %kh] -> %Bq : memref<256x128xi8>, memref<64x16xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 32) {
        %jh = arith.floordivsi %j, %c2 : index
        %q = tile.load %Bq[%i, %jh] : memref<64x16xi8, #gpu.address_space<workgroup>>
        %x = arith.sitofp %q : i8 to f16
        %row = arith.addi %n, %i : index
        %kj = arith.addi %kk, %j : index
        %g = arith.floordivsi %kj, %c128 : index
        %s = tile.load %S[%row, %g] : memref<256x2xf16>
        %y = arith.mulf %x, %s : f16
        tile.store %y, %Bd[%i, %j] : memref<64x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bd, %acc transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<64x64xf32>, memref<256x256xf32>
  }
  return
}

// -----

// The host writes the scales: not a tensor the kernel only reads, so its
// loads stay where they are.
// CHECK-LABEL: func.func @written
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{[^ ]*}} = %c0, %{{[^ ]*}} = %c2) -> (index, index)
func.func @written(%A: memref<256x256xf16>, %B: memref<256x128xi8>, %S: memref<256x2xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f16
  memref.store %one, %S[%c0, %c0] : memref<256x2xf16>
  tile.kernel grid(%bx, %by) in (4, 4) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<64x16xi8, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c64 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<256x256xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
      %kh = arith.floordivsi %kk, %c2 : index
      tile.copy %B[%n, %kh] -> %Bq : memref<256x128xi8>, memref<64x16xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 32) {
        %jh = arith.floordivsi %j, %c2 : index
        %q = tile.load %Bq[%i, %jh] : memref<64x16xi8, #gpu.address_space<workgroup>>
        %x = arith.sitofp %q : i8 to f16
        %row = arith.addi %n, %i : index
        %kj = arith.addi %kk, %j : index
        %g = arith.floordivsi %kj, %c128 : index
        %s = tile.load %S[%row, %g] : memref<256x2xf16>
        %y = arith.mulf %x, %s : f16
        tile.store %y, %Bd[%i, %j] : memref<64x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bd, %acc transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<64x64xf32>, memref<256x256xf32>
  }
  return
}
