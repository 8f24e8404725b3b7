// RUN: tile-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Types and attributes
//===----------------------------------------------------------------------===//

// expected-error @+1 {{fragment dims must be static and positive}}
func.func private @f(!tile.fragment<?x4xf32>)

// -----

// expected-error @+1 {{fragment element type must be an integer or float, got 'vector<2xf32>'}}
func.func private @f(!tile.fragment<4xvector<2xf32>>)

// -----

// expected-error @+1 {{fragment has more than 2^32 elements}}
func.func private @f(!tile.fragment<65536x65536x2xf32>)

// -----

// expected-error @+1 {{fragment must have rank 1 or more}}
func.func private @f(!tile.fragment<f32>)

// -----

// expected-error @+1 {{expected a thread stride 't<N>' or a slot stride 's<N>', got 'x4'}}
func.func private @f() attributes {l = #tile.fragment<[[8:x4]]>}

// -----

// expected-error @+1 {{expected an integer stride after 't', got 'tx'}}
func.func private @f() attributes {l = #tile.fragment<[[8:tx]]>}

// -----

// expected-error @+1 {{padding must be non-negative, got -1}}
func.func private @f() attributes {l = #tile.padded<-1>}

// -----

// expected-error @+1 {{swizzle mode must be 32, 64 or 128 bytes, got 16}}
func.func private @f() attributes {l = #tile.swizzle<16>}

// -----

// expected-error @+1 {{swizzle mode must be 32, 64 or 128 bytes, got 256}}
func.func private @f() attributes {l = #tile.shared<[[8:8], [8:1]], swizzle 256>}

// -----

// expected-error @+1 {{layout factor size must be positive, got 0}}
func.func private @f() attributes {l = #tile.shared<[[0:1]]>}

// -----

// expected-error @+1 {{layout factor stride must be non-negative, got -2}}
func.func private @f() attributes {l = #tile.shared<[[4:-2]]>}

// -----

// expected-error @+1 {{layout is too large: at most 2^32 elements and strides below 2^32}}
func.func private @f() attributes {l = #tile.shared<[[65536:1], [65536:65536], [2:1]]>}

// -----

// expected-error @+1 {{layout is too large: at most 2^32 elements and strides below 2^32}}
func.func private @f() attributes {l = #tile.fragment<[[4:t8589934592]]>}

// -----

// expected-error @+1 {{layout must have rank 1 or more}}
func.func private @f() attributes {l = #tile.shared<[]>}

// -----

// expected-error @+1 {{layout maps elements [0, 1] and [1, 0] to the same offset 1}}
func.func private @f() attributes {l = #tile.shared<[[2:1], [2:1]]>}

// -----

// expected-error @+1 {{fragment layout maps element [0, 1] and element [1, 0] to the same thread 1, slot 0}}
func.func private @f() attributes {l = #tile.fragment<[[2:t1], [2:t1]]>}

// -----

// expected-error @+1 {{fragment layout maps element [0] (copy 1) and element [2] to the same thread 2, slot 0}}
func.func private @f() attributes {l = #tile.fragment<[[4:t1]], replicate [2:t2]>}

// -----

// expected-error @+1 {{replication must be across threads ('t<N>' strides), got a slot stride}}
func.func private @f() attributes {l = #tile.fragment<[[4:t1]], replicate [2:s4]>}

// -----

// expected-error @+1 {{raster panel must be positive, got 0}}
func.func private @f() attributes {r = #tile.raster<0>}

//===----------------------------------------------------------------------===//
// tile.kernel and nesting
//===----------------------------------------------------------------------===//

// -----

func.func @f() {
  // expected-error @+1 {{expects 1 to 3 grid dims, got 4}}
  tile.kernel grid(%a, %b, %c, %d) in (1, 1, 1, 1) threads(32) {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{grid size must be positive, got 0}}
  tile.kernel grid(%a) in (0) threads(32) {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{threads must be in [1, 1024], got 2048}}
  tile.kernel grid(%a) in (1) threads(2048) {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{threads must be in [1, 1024], got -1}}
  tile.kernel grid(%a) in (1) threads(-1) {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.persistent' is spelled as the keyword 'persistent' (after threads/raster)}}
  tile.kernel grid(%a) in (4) threads(32) attributes {tile.persistent} {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.specialize' is spelled as the keyword 'specialize' (after threads/raster)}}
  tile.kernel grid(%a) in (4) threads(32) attributes {tile.specialize} {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'persistent' is a keyword of tile.kernel (after threads/raster), not an attribute}}
  tile.kernel grid(%a) in (4) threads(32) attributes {persistent = 1 : i64} {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{raster needs a 2-d grid, got 1 grid dims}}
  tile.kernel grid(%a) in (4) threads(32) raster(#tile.raster<2>) {
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{expects 2 block id arguments of type index, one per grid dim}}
  tile.kernel grid(%a) in (2, 3) threads(32) {
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{cannot be nested in another 'tile.kernel'}}
    tile.kernel grid(%b) in (1) threads(32) {
    }
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.alloc_shared' op must be nested in a 'tile.kernel'}}
  %s = tile.alloc_shared : memref<16xf32, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @f(%g: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'tile.copy' op cannot be nested in a 'tile.parallel' body}}
      tile.copy %g[0] -> %s : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects a memref in #gpu.address_space<workgroup>, got 'memref<16xf32>'}}
    %s = tile.alloc_shared : memref<16xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects the identity memref layout; give the shared layout in 'layout(...)'}}
    %s = tile.alloc_shared : memref<16x16xf32, strided<[32, 1]>, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects an integer or float element type, got 'index'}}
    %s = tile.alloc_shared : memref<16xindex, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects every dim of the buffer to be positive, got 'memref<64x0xf16, #gpu.address_space<workgroup>>'}}
    %s = tile.alloc_shared : memref<64x0xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{result #0 must be statically shaped memref of any type values}}
    %s = tile.alloc_shared : memref<?xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects a shared-memory layout, got #tile.fragment<[[32:t1]]>}}
    %s = tile.alloc_shared layout(#tile.fragment<[[32:t1]]>) : memref<32xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{swizzle<128> needs the innermost dimension to span a multiple of 128 bytes, got 64 bytes (32 x 'f16')}}
    %s = tile.alloc_shared layout(#tile.swizzle<128>) : memref<64x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{swizzle<64> needs a buffer of rank 2 or more, got rank 1}}
    %s = tile.alloc_shared layout(#tile.swizzle<64>) : memref<64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{padded layout needs a buffer of rank 2 or more, got rank 1}}
    %s = tile.alloc_shared layout(#tile.padded<4>) : memref<64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{swizzled layouts need an element type of whole bytes, got 'i4'}}
    %s = tile.alloc_shared layout(#tile.swizzle<32>) : memref<8x64xi4, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{swizzle<32> does not support element type 'i24'}}
    %s = tile.alloc_shared layout(#tile.swizzle<32>) : memref<8x32xi24, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{swizzle 64 does not support element type 'i24'}}
    %s = tile.alloc_shared layout(#tile.shared<[[8:32], [32:1]], swizzle 64>) : memref<8x32xi24, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{layout covers shape [16, 8] but the buffer has shape [32, 8]}}
    %s = tile.alloc_shared layout(#tile.shared<[[16:8], [8:1]]>) : memref<32x8xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects a fragment layout, got #tile.swizzle<128>}}
    %f = tile.fragment layout(#tile.swizzle<128>) : !tile.fragment<16x64xf16>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{fragment layout covers shape [16, 8] but the buffer has shape [32, 8]}}
    %f = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<32x8xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(64) {
    // expected-error @+1 {{layout places elements on thread 127, but the kernel has 64 threads}}
    %f = tile.fragment layout(#tile.fragment<[[128:t1]]>) : !tile.fragment<128xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.copy, tile.atomic_add
//===----------------------------------------------------------------------===//

// -----

func.func @f(%p: memref<4x4xf32, #gpu.address_space<private>>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<4x4xf32>
    // expected-error @+1 {{expects the source to be a global memref, a shared memref or a fragment, got 'memref<4x4xf32, #gpu.address_space<private>>'}}
    tile.copy %p -> %f : memref<4x4xf32, #gpu.address_space<private>>, !tile.fragment<4x4xf32>
  }
  return
}

// -----

func.func @f(%g: memref<64xf32>, %h: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{cannot copy between two global memrefs: neither side gives a tile shape}}
    tile.copy %g[0] -> %h : memref<64xf32>, memref<64xf32>
  }
  return
}

// -----

func.func @f(%g: memref<64xf16>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64xi32>
    // expected-error @+1 {{cannot convert element type 'f16' to 'i32'}}
    tile.copy %g[0] -> %f : memref<64xf16>, !tile.fragment<64xi32>
  }
  return
}

// -----

func.func @f(%g: memref<2x64x64xf16>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64x64xf16>
    // expected-error @+1 {{tile rank 2 does not match global rank 3; take a rank-reducing memref.subview of the global first}}
    tile.copy %g[0, 0, 0] -> %f : memref<2x64x64xf16>, !tile.fragment<64x64xf16>
  }
  return
}

// -----

func.func @f(%g: memref<64x64xf16>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64x64xf16>
    // expected-error @+1 {{expects 2 offsets into the rank-2 global operand, got 1}}
    tile.copy %g[0] -> %f : memref<64x64xf16>, !tile.fragment<64x64xf16>
  }
  return
}

// -----

func.func @f(%g: memref<64x64xf16>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64x64xf16>
    // expected-error @+1 {{expects 2 offsets into the rank-2 global operand, got 0}}
    tile.copy %g -> %f : memref<64x64xf16>, !tile.fragment<64x64xf16>
  }
  return
}

// -----

func.func @f(%g: memref<64x64xf16>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64x64xf16>
    // expected-error @+1 {{offsets must be non-negative, got -1}}
    tile.copy %g[0, -1] -> %f : memref<64x64xf16>, !tile.fragment<64x64xf16>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{offsets must follow the global memref operand of a copy}}
    tile.copy %s[0] -> %f : memref<64xf32, #gpu.address_space<workgroup>>, !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{offsets are only allowed on a global memref operand}}
    "tile.copy"(%s, %f) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0>} : (memref<64xf32, #gpu.address_space<workgroup>>, !tile.fragment<64xf32>) -> ()
  }
  return
}

// -----

func.func @f(%g: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{expected 1 dynamic offset values}}
    "tile.copy"(%g, %f) {operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: -9223372036854775808>} : (memref<64xf32>, !tile.fragment<64xf32>) -> ()
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    %s = tile.alloc_shared : memref<128x32xf32, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x32xf32>
    // expected-error @+1 {{source shape [128, 32] does not match destination shape [64, 32]}}
    tile.copy %s -> %f : memref<128x32xf32, #gpu.address_space<workgroup>>, !tile.fragment<64x32xf32>
  }
  return
}

// -----

func.func @f(%g: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{'pad' needs a global source: only global reads can fall outside a tensor}}
    tile.copy %f -> %g[0] {pad = 0.0 : f32} : !tile.fragment<64xf32>, memref<64xf32>
  }
  return
}

// -----

func.func @f(%g: memref<64xf16>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{'pad' type 'f32' does not match the source element type 'f16'}}
    tile.copy %g[0] -> %f {pad = 0.0 : f32} : memref<64xf16>, !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f(%g: memref<64xf32>, %h: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects the source to be a shared memref or a fragment, got 'memref<64xf32>'}}
    tile.atomic_add %g -> %h[0] : memref<64xf32>, memref<64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64xf32>
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expects the destination to be a global memref, got 'memref<64xf32, #gpu.address_space<workgroup>>'}}
    tile.atomic_add %f -> %s[0] : !tile.fragment<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f(%g: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64xi32>
    // expected-error @+1 {{cannot atomically add 'i32' into 'f32'}}
    tile.atomic_add %f -> %g[0] : !tile.fragment<64xi32>, memref<64xf32>
  }
  return
}

// -----

func.func @f(%g: memref<4x64xf32>) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{tile rank 1 does not match global rank 2}}
    tile.atomic_add %f -> %g[0, 0] : !tile.fragment<64xf32>, memref<4x64xf32>
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.fill, tile.gemm, tile.reduce, tile.cumsum
//===----------------------------------------------------------------------===//

// -----

func.func @f(%g: memref<4x4xf32>, %v: f32) {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects a shared memref or a fragment, got 'memref<4x4xf32>'}}
    tile.fill %g, %v : memref<4x4xf32>
  }
  return
}

// -----

func.func @f(%v: f16) {
  tile.kernel grid(%a) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<4x4xf32>
    // expected-error @+1 {{failed to verify that value type matches the buffer's element type}}
    "tile.fill"(%f, %v) : (!tile.fragment<4x4xf32>, f16) -> ()
  }
  return
}

// -----

func.func @f(%g: memref<64x32xf16>) {
  tile.kernel grid(%a) in (1) threads(128) {
    %b = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x64xf32>
    // expected-error @+1 {{expects operand A to be a shared memref or a fragment, got 'memref<64x32xf16>'}}
    tile.gemm %g, %b, %c : memref<64x32xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %x = tile.alloc_shared : memref<2x64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x64xf32>
    // expected-error @+1 {{expects 2-d operands, A has rank 3}}
    tile.gemm %x, %b, %c : memref<2x64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %x = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x64xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x64xf32>
    // expected-error @+1 {{K mismatch: op(A) is 64x32 but op(B) is 16x64}}
    tile.gemm %x, %b, %c : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<16x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %x = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<64x32xf32>
    // expected-error @+1 {{C shape 64x32 does not match op(A) x op(B) = 64x64}}
    tile.gemm %x, %b, %c transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x32xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %x = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x16xbf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    // expected-error @+1 {{unsupported element types: A 'f16', B 'bf16', C 'f32'}}
    tile.gemm %x, %b, %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xbf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %x = tile.alloc_shared : memref<16x16xbf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xbf16>
    // expected-error @+1 {{unsupported element types: A 'bf16', B 'bf16', C 'bf16'}}
    tile.gemm %x, %x, %c : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xbf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xbf16>
  }
  return
}

// -----

func.func @f(%g: memref<64x64xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{expects shared memref or fragment operands}}
    tile.reduce sum %g -> %r dim 1 : memref<64x64xf32>, !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x128xf32>
    %r = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{reduce dim 2 is out of range for a rank-2 source}}
    tile.reduce sum %s -> %r dim 2 : !tile.fragment<64x128xf32>, !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x128xf32>
    %r = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{reduce dim -1 is out of range for a rank-2 source}}
    tile.reduce sum %s -> %r dim -1 : !tile.fragment<64x128xf32>, !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x128xf32>
    %r = tile.fragment : !tile.fragment<128xf32>
    // expected-error @+1 {{expects destination shape [64] (source [64, 128] without dim 1), got [128]}}
    tile.reduce max %s -> %r dim 1 : !tile.fragment<64x128xf32>, !tile.fragment<128xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x128xi32>
    %r = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{cannot reduce 'i32' into 'f32'}}
    tile.reduce sum %s -> %r dim 1 : !tile.fragment<64x128xi32>, !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f(%g: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment : !tile.fragment<64xf32>
    // expected-error @+1 {{expects shared memref or fragment operands}}
    tile.cumsum %g -> %r dim 0 : memref<64xf32>, !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x32xf32>
    // expected-error @+1 {{cumsum dim -1 is out of range for a rank-2 source}}
    tile.cumsum %s -> %s dim -1 : !tile.fragment<64x32xf32>, !tile.fragment<64x32xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x32xf32>
    %t = tile.fragment : !tile.fragment<64x16xf32>
    // expected-error @+1 {{source shape [64, 32] does not match destination shape [64, 16]}}
    tile.cumsum %s -> %t dim 1 : !tile.fragment<64x32xf32>, !tile.fragment<64x16xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x32xf32>
    %t = tile.fragment : !tile.fragment<64x32xf16>
    // expected-error @+1 {{source and destination element types differ: 'f32' vs 'f16'}}
    tile.cumsum %s -> %t dim 1 : !tile.fragment<64x32xf32>, !tile.fragment<64x32xf16>
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.parallel, tile.pipelined
//===----------------------------------------------------------------------===//

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{expects an iteration space of rank 1 or more}}
    tile.parallel () in () {
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{iteration space extents must be positive, got 0}}
    tile.parallel (%i) in (0) {
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{expects 2 induction variables of type index, one per dim}}
    tile.parallel (%i) in (4, 4) {
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{expects a fragment layout, got #tile.linear}}
    tile.parallel (%i) in (64) layout(#tile.linear) {
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{fragment layout covers shape [32] but the buffer has shape [64]}}
    tile.parallel (%i) in (64) layout(#tile.fragment<[[32:t1]]>) {
    }
  }
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{num_stages must be non-negative, got -1}}
    tile.pipelined %k = %c0 to %n step %c1 stages(-1) {
    }
  }
  return
}

// -----

func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{expects one induction variable of type index}}
    "tile.pipelined"(%c0, %n, %c1) ({
    ^bb0(%k: i32):
    }) {num_stages = 2 : i64} : (index, index, index) -> ()
  }
  return
}

// -----

func.func @f(%n: index, %g: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'order' has 1 entries but the body has 2 ops}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [0] {
      tile.copy %g[0] -> %s : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
      tile.copy %s -> %g[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
    }
  }
  return
}

// -----

func.func @f(%n: index, %g: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'order' must be a permutation of 0..1}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) order [1, 1] {
      tile.copy %g[0] -> %s : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
      tile.copy %s -> %g[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
    }
  }
  return
}

// -----

func.func @f(%n: index, %g: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'stage' has 3 entries but the body has 2 ops}}
    tile.pipelined %k = %c0 to %n step %c1 stages(2) stage [0, 1, 1] {
      tile.copy %g[0] -> %s : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
      tile.copy %s -> %g[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
    }
  }
  return
}

// -----

func.func @f(%n: index, %g: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{stage 3 is out of range for 3 pipeline stages}}
    tile.pipelined %k = %c0 to %n step %c1 stages(3) stage [0, 3] {
      tile.copy %g[0] -> %s : memref<64xf32>, memref<64xf32, #gpu.address_space<workgroup>>
      tile.copy %s -> %g[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
    }
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.load, tile.store
//===----------------------------------------------------------------------===//

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %f = tile.fragment : !tile.fragment<64xf32>
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{must be nested in a 'tile.parallel' body}}
    %x = tile.load %f[%c0] : !tile.fragment<64xf32>
  }
  return
}

// -----

func.func @f(%p: memref<64xf32, #gpu.address_space<private>>) {
  tile.kernel grid(%a) in (1) threads(128) {
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{expects a global memref, a shared memref or a fragment, got 'memref<64xf32, #gpu.address_space<private>>'}}
      %x = tile.load %p[%i] : memref<64xf32, #gpu.address_space<private>>
    }
  }
  return
}

// -----

func.func @f(%g: memref<64x64xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{expects 2 indices for a rank-2 buffer, got 1}}
      %x = tile.load %g[%i] : memref<64x64xf32>
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %f = tile.fragment : !tile.fragment<64xf32>
    tile.parallel (%i) in (64) {
      %c1 = arith.constant 1 : index
      %next = arith.addi %i, %c1 : index
      // expected-error @+1 {{fragment index #0 must be an induction variable of the enclosing 'tile.parallel' or the same in every iteration (a constant or a value defined outside it)}}
      %x = tile.load %f[%next] : !tile.fragment<64xf32>
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %f = tile.fragment : !tile.fragment<64x64xf32>
    tile.parallel (%i, %j) in (64, 64) {
      // expected-error @+1 {{fragment indices must be distinct induction variables}}
      %x = tile.load %f[%i, %i] : !tile.fragment<64x64xf32>
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %f = tile.fragment : !tile.fragment<32xf32>
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{fragment dim 0 has size 32 but its induction variable ranges over 64}}
      %x = tile.load %f[%i] : !tile.fragment<32xf32>
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %f = tile.fragment : !tile.fragment<64xf32>
    tile.parallel (%i, %j) in (64, 8) {
      %x = tile.load %f[%i] : !tile.fragment<64xf32>
      // expected-error @+1 {{a fragment store must use every induction variable of the enclosing 'tile.parallel'}}
      tile.store %x, %f[%i] : !tile.fragment<64xf32>
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'pad' needs a global memref: only global reads can fall outside a tensor}}
      %x = tile.load %s[%i] {pad = 0.0 : f32} : memref<64xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @f(%g: memref<64xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'pad' type 'f16' does not match the element type 'f32'}}
      %x = tile.load %g[%i] {pad = 0.0 : f16} : memref<64xf32>
    }
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.print
//===----------------------------------------------------------------------===//

// -----

func.func @f() {
  // expected-error @+1 {{'tile.print' op must be nested in a 'tile.kernel'}}
  tile.print "hello"
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'tile.print' op prints a buffer, which a 'tile.parallel' body cannot: print a scalar there (an element read), or the buffer after the loop}}
      tile.print "s" %s : memref<64xf32, #gpu.address_space<workgroup>>
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op expects a value to print or a non-empty message}}
    tile.print ""
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op prints only its message: 'name', 'thread' and 'unsigned' need a printed value}}
    tile.print "hello" thread 0
  }
  return
}

// -----

func.func @f(%v: vector<4xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op operand #0 must be integer, index, float, memref or fragment, but got 'vector<4xf32>'}}
    tile.print "v" %v : vector<4xf32>
  }
  return
}

// -----

func.func @f(%g: memref<4xvector<2xf32>>) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op prints integer, index or float elements, got 'vector<2xf32>'}}
    tile.print "g" %g : memref<4xvector<2xf32>>
  }
  return
}

// -----

func.func @f(%v: i128) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op prints integers of at most 64 bits, got 'i128'}}
    tile.print "v" %v : i128
  }
  return
}

// -----

func.func @f(%v: f32) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op 'unsigned' needs integer values, got 'f32'}}
    tile.print "v" %v unsigned : f32
  }
  return
}

// -----

func.func @f(%g: memref<4xf32, 3>) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op cannot print a memref in memory space 3 : i64}}
    tile.print "g" %g : memref<4xf32, 3>
  }
  return
}

// -----

func.func @f(%v: f32) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op 'name' names a printed buffer, but the value is a scalar of type 'f32'}}
    tile.print "v" %v name "v" : f32
  }
  return
}

// -----

func.func @f(%v: f32) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.print' op 'thread' selects the thread that prints a buffer, but every thread prints a scalar}}
    tile.print "v" %v thread 32 : f32
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %l = memref.alloca() : memref<4xf32>
    // expected-error @+1 {{'tile.print' op 'thread' selects the thread that prints a buffer, but every thread prints a thread-local buffer}}
    tile.print "l" %l thread 1 : memref<4xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.alloc_shared : memref<4xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.print' op expects a non-negative thread, got -1}}
    tile.print "s" %s thread -1 : memref<4xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<4xf32>
    // expected-error @+1 {{'tile.print' op prints from thread 128, but the kernel has 128 threads}}
    tile.print "s" %s thread 128 : !tile.fragment<4xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.fragment' op a reducer's kind is sum, max or min, got absmax}}
    %r = tile.fragment reducer(absmax) : !tile.fragment<4xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{unknown reducer kind 'prod'}}
    %r = tile.fragment reducer(prod) : !tile.fragment<4xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{'tile.fragment' op a reducer's elements are floats or signless integers, got 'ui32'}}
    %r = tile.fragment reducer(max) : !tile.fragment<4xui32>
  }
  return
}


// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment : !tile.fragment<4xf32>
    // expected-error @+1 {{'tile.finalize_reducer' op expects a reducer (a 'tile.fragment' with 'reducer(kind)'), got another fragment}}
    tile.finalize_reducer %r : !tile.fragment<4xf32>
  }
  return
}

// -----

func.func @f(%v: f32) {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment reducer(sum) : !tile.fragment<4xf32>
    tile.parallel (%i, %j) in (4, 8) {
      // expected-error @+1 {{'tile.store' op stores to a sum reducer a value that is not an update of the element: expected arith.addf or arith.addi of a 'tile.load' of the same element (used only there) and the contribution}}
      tile.store %v, %r[%i] : !tile.fragment<4xf32>
    }
  }
  return
}

// -----

func.func @f(%v: f32) {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment reducer(max) : !tile.fragment<4xf32>
    tile.parallel (%i, %j) in (4, 8) {
      %old = tile.load %r[%i] : !tile.fragment<4xf32>
      %new = arith.addf %old, %v : f32
      // expected-error @+1 {{'tile.store' op stores to a max reducer a value that is not an update of the element: expected arith.maximumf, arith.maxnumf or arith.maxsi of a 'tile.load' of the same element (used only there) and the contribution}}
      tile.store %new, %r[%i] : !tile.fragment<4xf32>
    }
  }
  return
}

// -----

func.func @f(%v: f32) {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment reducer(min) : !tile.fragment<8xf32>
    tile.parallel (%i, %j) in (8, 8) {
      %old = tile.load %r[%i] : !tile.fragment<8xf32>
      %new = arith.minimumf %old, %v : f32
      // expected-error @+1 {{'tile.store' op stores to a min reducer a value that is not an update of the element: expected arith.minimumf, arith.minnumf or arith.minsi of a 'tile.load' of the same element (used only there) and the contribution}}
      tile.store %new, %r[%j] : !tile.fragment<8xf32>
    }
  }
  return
}

// -----

func.func @f(%G: memref<4x8xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment reducer(sum) : !tile.fragment<4xf32>
    tile.parallel (%i, %j) in (4, 8) {
      // expected-error @+1 {{'tile.load' op reads a reducer in the 'tile.parallel' that updates it, other than to update the element: its value is known after 'tile.finalize_reducer'}}
      %seen = tile.load %r[%i] : !tile.fragment<4xf32>
      tile.store %seen, %G[%i, %j] : memref<4x8xf32>
      %old = tile.load %r[%i] : !tile.fragment<4xf32>
      %new = arith.addf %old, %seen : f32
      tile.store %new, %r[%i] : !tile.fragment<4xf32>
    }
  }
  return
}

// -----

func.func @f(%v: f32) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-note @+1 {{the reducer}}
    %r = tile.fragment reducer(sum) : !tile.fragment<4xf32>
    tile.finalize_reducer %r : !tile.fragment<4xf32>
    // expected-error @+1 {{'tile.parallel' op updates a reducer after its 'tile.finalize_reducer': 'tile.fill' it first to start another reduction}}
    tile.parallel (%i, %j) in (4, 8) {
      %old = tile.load %r[%i] : !tile.fragment<4xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%i] : !tile.fragment<4xf32>
    }
  }
  return
}

// -----

// The second iteration updates what the first finalized.
func.func @f(%v: f32, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-note @+1 {{the reducer}}
    %r = tile.fragment reducer(sum) : !tile.fragment<4xf32>
    tile.fill %r, %zero : !tile.fragment<4xf32>
    scf.for %k = %c0 to %n step %c1 {
      // expected-error @+1 {{'tile.parallel' op updates a reducer after its 'tile.finalize_reducer'}}
      tile.parallel (%i, %j) in (4, 8) {
        %old = tile.load %r[%i] : !tile.fragment<4xf32>
        %new = arith.addf %old, %v : f32
        tile.store %new, %r[%i] : !tile.fragment<4xf32>
      }
      tile.finalize_reducer %r : !tile.fragment<4xf32>
    }
  }
  return
}

// -----

func.func @f(%v: f32, %G: memref<4xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-note @+1 {{the reducer}}
    %r = tile.fragment reducer(sum) : !tile.fragment<4xf32>
    tile.parallel (%i, %j) in (4, 8) {
      %old = tile.load %r[%i] : !tile.fragment<4xf32>
      %new = arith.addf %old, %v : f32
      tile.store %new, %r[%i] : !tile.fragment<4xf32>
    }
    // expected-error @+1 {{'tile.parallel' op reads a reducer before 'tile.finalize_reducer' has combined its partial values}}
    tile.parallel (%i) in (4) {
      %x = tile.load %r[%i] : !tile.fragment<4xf32>
      tile.store %x, %G[%i] : memref<4xf32>
    }
  }
  return
}

// -----

// Finalized on one path only.
func.func @f(%v: f32, %G: memref<4xf32>, %b: i1) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-note @+1 {{the reducer}}
    %r = tile.fragment reducer(sum) : !tile.fragment<4xf32>
    tile.fill %r, %zero : !tile.fragment<4xf32>
    scf.if %b {
      tile.finalize_reducer %r : !tile.fragment<4xf32>
    }
    // expected-error @+1 {{'tile.copy' op reads a reducer before 'tile.finalize_reducer' has combined its partial values}}
    tile.copy %r -> %G[0] : !tile.fragment<4xf32>, memref<4xf32>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    %r = tile.fragment reducer(max) : !tile.fragment<4xf32>
    tile.finalize_reducer %r : !tile.fragment<4xf32>
    // expected-error @+1 {{'tile.finalize_reducer' op finalizes a reducer that holds its totals already: another reduction into it starts with 'tile.fill'}}
    tile.finalize_reducer %r : !tile.fragment<4xf32>
  }
  return
}

// -----

func.func @f(%G: memref<4xf32>) {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-note @+1 {{the reducer}}
    %r = tile.fragment reducer(sum) : !tile.fragment<4xf32>
    // expected-error @+1 {{'tile.copy' op writes a reducer: only 'tile.fill', updates in 'tile.parallel' bodies and 'tile.finalize_reducer' write one}}
    tile.copy %G[0] -> %r : memref<4xf32>, !tile.fragment<4xf32>
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.thread_id' op must be nested in a 'tile.kernel'}}
  %t = tile.thread_id thread : index
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    tile.parallel (%i) in (32) {
      // expected-error @+1 {{'tile.thread_id' op cannot be nested in a 'tile.parallel' body}}
      %t = tile.thread_id thread : index
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    tile.parallel (%i) in (32) {
      // expected-error @+1 {{'tile.barrier' op cannot be nested in a 'tile.parallel' body}}
      tile.barrier
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+2 {{expected ::mlir::tile::ThreadUnit to be one of: thread, lane, warp}}
    // expected-error @+1 {{failed to parse Tile_ThreadUnitAttr parameter 'value'}}
    %t = tile.thread_id block : index
  }
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'tile.fence' op must be nested in a 'tile.kernel'}}
  tile.fence release
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+2 {{expected ::mlir::tile::MemoryOrder to be one of: acquire, release, acq_rel, seq_cst}}
    // expected-error @+2 {{failed to parse Tile_MemoryOrderAttr parameter 'value'}}
    tile.fence relaxed
  }
  return
}

//===----------------------------------------------------------------------===//
// tile.im2col
//===----------------------------------------------------------------------===//

// -----

func.func @f(%img: memref<?x?x?xf16>, %i: index) {
  tile.kernel grid(%a) in (1) threads(32) {
    %cols = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{expects the image to be a 4-d (N, H, W, C) global memref, got 'memref<?x?x?xf16>'}}
    tile.im2col %img[%i, %i] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?xf16>, memref<16x16xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f(%img: memref<?x?x?x?xf16>, %i: index, %g: memref<16x16xf16>) {
  tile.kernel grid(%a) in (1) threads(32) {
    // expected-error @+1 {{expects the column tile to be a 2-d shared memref, got 'memref<16x16xf16>'}}
    tile.im2col %img[%i, %i] -> %g kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<16x16xf16>
  }
  return
}

// -----

func.func @f(%img: memref<?x?x?x?xf16>, %i: index) {
  tile.kernel grid(%a) in (1) threads(32) {
    %cols = tile.alloc_shared : memref<16x16xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{image element type 'f16' does not match the column tile's 'f32'}}
    tile.im2col %img[%i, %i] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<16x16xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f(%img: memref<?x?x?x?xf16>, %i: index) {
  tile.kernel grid(%a) in (1) threads(32) {
    %cols = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    // expected-error @+1 {{attribute 'stride' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    tile.im2col %img[%i, %i] -> %cols kernel 3 stride 0 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<16x16xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @f(%img: memref<?x?x?x?xf16>, %i: index) {
  %cols = memref.alloca() : memref<16x16xf16, #gpu.address_space<workgroup>>
  // expected-error @+1 {{'tile.im2col' op must be nested in a 'tile.kernel'}}
  tile.im2col %img[%i, %i] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<16x16xf16, #gpu.address_space<workgroup>>
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(256) {
    // expected-error @+1 {{bounds must be multiples of 32 (whole warps), got 0 to 100}}
    tile.thread_range 0 to 100 {
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(128) {
    // expected-error @+1 {{ends at thread 256, but the kernel has 128 threads}}
    tile.thread_range 128 to 256 {
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(256) {
    // expected-error @+1 {{needs 0 <= begin < end, got 128 to 128}}
    tile.thread_range 128 to 128 {
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(256) {
    // expected-note @+1 {{the enclosing range}}
    tile.thread_range 0 to 256 {
      // expected-error @+1 {{cannot be nested in another 'tile.thread_range'}}
      tile.thread_range 0 to 128 {
      }
    }
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(256) {
    // expected-error @+1 {{has 1 arrival counts for 2 barriers}}
    %b = tile.alloc_barrier [128] : !tile.barrier<2>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(256) {
    // expected-error @+1 {{arrival counts must be 1 to 1048575, got 0}}
    %b = tile.alloc_barrier [0] : !tile.barrier<1>
  }
  return
}

// -----

func.func @f() {
  tile.kernel grid(%a) in (1) threads(256) {
    tile.thread_range 0 to 128 {
      // expected-error @+1 {{must be at the kernel's level (directly in its 'tile.kernel', where every thread makes it)}}
      %b = tile.alloc_barrier [128] : !tile.barrier<1>
    }
  }
  return
}

// -----

func.func @f(%i: index) {
  tile.kernel grid(%a) in (1) threads(256) {
    %b = tile.alloc_barrier [128] : !tile.barrier<1>
    tile.parallel (%j) in (128) {
      // expected-error @+1 {{cannot be in a 'tile.parallel' body: it is the running thread's}}
      tile.barrier_arrive %b[%i] : !tile.barrier<1>
    }
  }
  return
}

// -----

// expected-error @+1 {{a barrier group holds at least one barrier, got 0}}
func.func @f(%b: !tile.barrier<0>) {
  return
}

// -----

func.func @f(%A: memref<?x?xf16>, %i: index) {
  tile.kernel grid(%a) in (1) threads(256) {
    %b = tile.alloc_barrier [128] : !tile.barrier<1>
    %f = tile.fragment : !tile.fragment<64x64xf16>
    // expected-error @+1 {{signals a barrier, so it must copy from global to shared memory (TileLang's T.tma_copy load)}}
    tile.copy %A[%i, %i] -> %f barrier(%b[%i]) : memref<?x?xf16>, !tile.fragment<64x64xf16>, !tile.barrier<1>
  }
  return
}

// -----

// A fragment belongs to the threads of one thread range.
func.func @fragment_of_two_ranges(%C: memref<128x128xf32>) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(256) {
    // expected-error @+1 {{is used by different threads: a fragment belongs to the threads of one 'tile.thread_range' (or to the whole block)}}
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.thread_range 0 to 128 {
      // expected-note @+1 {{used here by threads 0 to 128}}
      tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    }
    tile.thread_range 128 to 256 {
      // expected-note @+1 {{and here by threads 128 to 256}}
      tile.copy %acc -> %C[0, 0] : !tile.fragment<128x128xf32>, memref<128x128xf32>
    }
  }
  return
}
