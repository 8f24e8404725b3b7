// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse --split-input-file | FileCheck %s

// A thread's run of 16 consecutive iterations runs once on vectors: the
// int8 weights come from shared memory in one 16-byte load, are converted
// and scaled as vector<16xf16>, and go to shared memory in two 16-byte
// stores; the row's scale, the same across the run, is loaded once.

// CHECK-LABEL: func.func @dequant
// CHECK: gpu.barrier
// CHECK: %[[Q:.*]] = vector.load %{{.*}} : memref<2048xi8, #gpu.address_space<workgroup>>, vector<16xi8>
// CHECK-NEXT: %[[H:.*]] = arith.sitofp %[[Q]] : vector<16xi8> to vector<16xf16>
// CHECK: memref.load %{{.*}} : memref<64xf16>
// CHECK-NOT: memref.load
// CHECK: %[[S:.*]] = vector.broadcast %{{.*}} : f16 to vector<16xf16>
// CHECK-NEXT: %[[V:.*]] = arith.mulf %[[H]], %[[S]] : vector<16xf16>
// CHECK-NEXT: %[[LO:.*]] = vector.shuffle %[[V]], %[[V]] [0, 1, 2, 3, 4, 5, 6, 7]
// CHECK-NEXT: vector.store %[[LO]], %{{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: %[[HI:.*]] = vector.shuffle %[[V]], %[[V]] [8, 9, 10, 11, 12, 13, 14, 15]
// CHECK: vector.store %[[HI]], %{{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: gpu.barrier
func.func @dequant(%X: memref<64x64xi8>, %S: memref<64xf16>, %Y: memref<64x64xf16>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %x = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %w = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %x : memref<64x64xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (32, 64) {
      %q = tile.load %x[%i, %j] : memref<32x64xi8, #gpu.address_space<workgroup>>
      %h = arith.sitofp %q : i8 to f16
      %s = tile.load %S[%i] : memref<64xf16>
      %v = arith.mulf %h, %s : f16
      tile.store %v, %w[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %w -> %Y[0, 0] : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16>
  }
  return
}

// -----

// Global memory at a run-time column offset: vectors where the tensors'
// rows and the offset are aligned (tested once, before the loop), the
// element-by-element code otherwise. A fragment's slots are registers,
// read one by one.

// CHECK-LABEL: func.func @epilogue
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c64 : index
// CHECK: arith.remui %[[COL]], %c4
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: memref.extract_aligned_pointer_as_index %arg2
// CHECK: scf.if
// CHECK-COUNT-4: memref.load %{{.*}} : memref<16xf32>
// CHECK: vector.from_elements {{.*}} : vector<4xf32>
// CHECK: vector.load %arg1[%{{.*}}] {alignment = 8 : i64} : memref<72xf16>, vector<4xf16>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK: vector.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] {alignment = 8 : i64} : memref<50x72xf16>, vector<4xf16>
// CHECK: } else {
// CHECK-NOT: vector.load
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] : memref<50x72xf16>
func.func @epilogue(%A: memref<50x72xf32>, %B: memref<72xf16>, %Y: memref<50x72xf16>) {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %acc = tile.fragment : !tile.fragment<32x64xf32>
    %row = arith.muli %bx, %c32 : index
    %col = arith.muli %by, %c64 : index
    tile.copy %A[%row, %col] -> %acc : memref<50x72xf32>, !tile.fragment<32x64xf32>
    tile.parallel (%i, %j) in (32, 64) {
      %a = tile.load %acc[%i, %j] : !tile.fragment<32x64xf32>
      %c = arith.addi %col, %j : index
      %b = tile.load %B[%c] : memref<72xf16>
      %bf = arith.extf %b : f16 to f32
      %s = arith.addf %a, %bf : f32
      %y = arith.maximumf %s, %zero : f32
      %h = arith.truncf %y : f32 to f16
      %r = arith.addi %row, %i : index
      tile.store %h, %Y[%r, %c] : memref<50x72xf16>
    }
  }
  return
}

// -----

// A store whose innermost index is not the run's goes element by element;
// the load beside it still reads a vector.

// CHECK-LABEL: func.func @transpose
// CHECK: vector.load %arg0[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<20x36xf32>, vector<4xf32>
// CHECK-COUNT-4: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<36x20xf32>
func.func @transpose(%X: memref<20x36xf32>, %Y: memref<36x20xf32>) {
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%bx) in (1) threads(64) {
    tile.parallel (%i, %j) in (32, 64) {
      %x = tile.load %X[%i, %j] : memref<20x36xf32>
      %y = arith.mulf %x, %two : f32
      tile.store %y, %Y[%j, %i] : memref<36x20xf32>
    }
  }
  return
}

// -----

// Bodies that stay scalar: only fragments (registers: nothing to gain), and
// iterations of a run storing to one element (the last one's value wins,
// as in the scalar order).

// CHECK-LABEL: func.func @scalar
// CHECK-NOT: vector.
// CHECK: return
func.func @scalar(%X: memref<32x64xf32>, %Y: memref<32xf32>) {
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%bx) in (1) threads(64) {
    %f = tile.fragment : !tile.fragment<32x64xf32>
    tile.fill %f, %two : !tile.fragment<32x64xf32>
    tile.parallel (%i, %j) in (32, 64) {
      %x = tile.load %f[%i, %j] : !tile.fragment<32x64xf32>
      %y = arith.mulf %x, %x : f32
      tile.store %y, %f[%i, %j] : !tile.fragment<32x64xf32>
    }
    tile.parallel (%i, %j) in (32, 64) {
      %x = tile.load %X[%i, %j] : memref<32x64xf32>
      tile.store %x, %Y[%i] : memref<32xf32>
    }
  }
  return
}

// -----

// Indices computed from the run's: a byte holding two 4-bit weights is
// read once for both (j floordiv 2: 8 bytes for a run of 16, each
// repeated), the nibble's shift is a constant per iteration (j mod 2), and
// a scale per group of 128 along j (a multiple of the run) is one load.

// CHECK-LABEL: func.func @unpack
// CHECK: %[[SHIFTS:.*]] = arith.constant dense<[0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4]> : vector<16xi32>
// CHECK: %[[K:.*]] = arith.muli %{{.*}}, %c64 : index
// CHECK: arith.remui %[[K]], %c16 : index
// CHECK: scf.if
// CHECK: %[[B:.*]] = vector.load %{{.*}} : memref<1024xi8, #gpu.address_space<workgroup>>, vector<8xi8>
// CHECK-NEXT: %[[R:.*]] = vector.shuffle %[[B]], %[[B]] [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7]
// CHECK-NEXT: %[[W:.*]] = arith.extsi %[[R]] : vector<16xi8> to vector<16xi32>
// CHECK-NEXT: arith.shrsi %[[W]], %[[SHIFTS]] : vector<16xi32>
// CHECK: %[[G:.*]] = arith.floordivsi %{{.*}}, %c128 : index
// CHECK: memref.load %arg1[%{{.*}}, %[[G]]] : memref<64x4xf16>
// CHECK-NOT: memref.load
// CHECK: vector.store %{{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: } else {
func.func @unpack(%X: memref<64x256xi8>, %S: memref<64x4xf16>, %Y: memref<64x512xf16>) {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c15 = arith.constant 15 : i32
  %c8 = arith.constant 8 : i32
  tile.kernel grid(%bx) in (16) threads(128) {
    %x = tile.alloc_shared : memref<32x32xi8, #gpu.address_space<workgroup>>
    %w = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %k = arith.muli %bx, %c32 : index
    tile.copy %X[0, %k] -> %x : memref<64x256xi8>, memref<32x32xi8, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (32, 64) {
      %half = arith.floordivsi %j, %c2 : index
      %byte = tile.load %x[%i, %half] : memref<32x32xi8, #gpu.address_space<workgroup>>
      %odd = arith.remsi %j, %c2 : index
      %shift = arith.muli %odd, %c4 : index
      %wide = arith.extsi %byte : i8 to i32
      %amount = arith.index_cast %shift : index to i32
      %shifted = arith.shrsi %wide, %amount : i32
      %nibble = arith.andi %shifted, %c15 : i32
      %q = arith.subi %nibble, %c8 : i32
      %h = arith.sitofp %q : i32 to f16
      %kk = arith.muli %k, %c2 : index
      %col = arith.addi %kk, %j : index
      %group = arith.floordivsi %col, %c128 : index
      %s = tile.load %S[%i, %group] : memref<64x4xf16>
      %v = arith.mulf %h, %s : f16
      tile.store %v, %w[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
    }
    %kk2 = arith.muli %k, %c2 : index
    tile.copy %w -> %Y[0, %kk2] : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x512xf16>
  }
  return
}

// -----

// A row mask (a grouped GEMM's epilogue: rows past the group's end are not
// stored): the branch's condition is the same across a run, so the run
// stores under one branch, in vectors, its column offset computed inside
// the branch (hoisted for the alignment test).
// CHECK-LABEL: func.func @row_mask
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<2048xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK-NEXT: %[[ROW:.*]] = arith.cmpi slt, %{{.*}}, %arg2 : index
// CHECK-NEXT: scf.if %[[ROW]] {
// CHECK: vector.store %[[V]], %arg1[{{.*}}] {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
func.func @row_mask(%X: memref<32x64xf16>, %Y: memref<?x?xf16>, %rows: index, %col: index) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %x = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %x : memref<32x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (32, 64) {
      %v = tile.load %x[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
      %inside = arith.cmpi slt, %i, %rows : index
      scf.if %inside {
        %c = arith.addi %col, %j : index
        tile.store %v, %Y[%i, %c] : memref<?x?xf16>
      }
    }
  }
  return
}
