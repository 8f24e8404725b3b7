// RUN: tile-opt %s --split-input-file --tile-specialize-kernels --verify-diagnostics | FileCheck %s

// A kernel marked specialize that reads a flag computed on the host
// becomes one kernel per value of the flag, launched under an scf.if on it;
// in each, the branches and selects the flag decides are gone.
// CHECK-LABEL: func.func @one_flag
// CHECK: %[[EVEN:.*]] = arith.cmpi eq
// CHECK: scf.if %[[EVEN]] {
// CHECK-NEXT: tile.kernel
// CHECK-NOT: specialize {
// CHECK-NOT: scf.if
// CHECK-NOT: arith.select
// CHECK: tile.fill %{{.*}}, %{{.*}} : !tile.fragment<64xf32>
// CHECK: } else {
// CHECK-NEXT: tile.kernel
// CHECK-NOT: scf.if
// CHECK-NOT: tile.fill
// CHECK: tile.parallel
// CHECK: arith.cmpi ult
// CHECK: arith.select
// CHECK-NOT: tile.kernel
// CHECK: return
func.func @one_flag(%n: index, %x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %rem = arith.remui %n, %c64 : index
  %even = arith.cmpi eq, %rem, %c0 : index
  tile.kernel grid(%bx) in (1) threads(64) specialize {
    %f = tile.fragment : !tile.fragment<64xf32>
    scf.if %even {
      tile.fill %f, %zero : !tile.fragment<64xf32>
    } else {
      tile.parallel (%i) in (64) {
        %inside = arith.cmpi ult, %i, %rem : index
        %v = arith.select %inside, %zero, %one : f32
        tile.store %v, %f[%i] : !tile.fragment<64xf32>
      }
    }
    %w = arith.select %even, %one, %zero : f32
    tile.parallel (%i) in (64) {
      %v = tile.load %f[%i] : !tile.fragment<64xf32>
      %s = arith.addf %v, %w : f32
      tile.store %s, %f[%i] : !tile.fragment<64xf32>
    }
    tile.copy %f -> %x[%c0] : !tile.fragment<64xf32>, memref<?xf32>
  }
  return
}

// -----

// Two flags: four kernels, nested under the first flag's scf.if then the
// second's; an unmarked kernel stays as it is.
// CHECK-LABEL: func.func @two_flags
// CHECK: scf.if %arg0 {
// CHECK-NEXT: scf.if %arg1 {
// CHECK-NEXT: tile.kernel
// CHECK: } else {
// CHECK-NEXT: tile.kernel
// CHECK: } else {
// CHECK-NEXT: scf.if %arg1 {
// CHECK-NEXT: tile.kernel
// CHECK: } else {
// CHECK-NEXT: tile.kernel
// CHECK: tile.kernel
// CHECK-NEXT: tile.fragment
// CHECK-NEXT: arith.select %arg0
// CHECK-NOT: tile.kernel
func.func @two_flags(%a: i1, %b: i1, %x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (1) threads(32) specialize {
    %f = tile.fragment : !tile.fragment<32xf32>
    %u = arith.select %a, %one, %zero : f32
    %v = arith.select %b, %one, %zero : f32
    %w = arith.addf %u, %v : f32
    tile.fill %f, %w : !tile.fragment<32xf32>
    tile.copy %f -> %x[%c0] : !tile.fragment<32xf32>, memref<?xf32>
  }
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<32xf32>
    %u = arith.select %a, %one, %zero : f32
    tile.fill %f, %u : !tile.fragment<32xf32>
    tile.copy %f -> %x[%c0] : !tile.fragment<32xf32>, memref<?xf32>
  }
  return
}

// -----

func.func @no_flag(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{is marked 'specialize' but uses no i1 value defined outside it to specialize on}}
  tile.kernel grid(%bx) in (1) threads(32) specialize {
    %f = tile.fragment : !tile.fragment<32xf32>
    tile.fill %f, %zero : !tile.fragment<32xf32>
    tile.copy %f -> %x[%c0] : !tile.fragment<32xf32>, memref<?xf32>
  }
  return
}

// -----

func.func @four_flags(%a: i1, %b: i1, %c: i1, %d: i1, %x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  // expected-error @+1 {{is marked 'specialize' and uses 4 i1 values defined outside it; at most 3 (8 kernels) are specialized on}}
  tile.kernel grid(%bx) in (1) threads(32) specialize {
    %f = tile.fragment : !tile.fragment<32xf32>
    %u = arith.select %a, %one, %zero : f32
    %v = arith.select %b, %u, %zero : f32
    %w = arith.select %c, %v, %zero : f32
    %y = arith.select %d, %w, %zero : f32
    tile.fill %f, %y : !tile.fragment<32xf32>
    tile.copy %f -> %x[%c0] : !tile.fragment<32xf32>, memref<?xf32>
  }
  return
}
