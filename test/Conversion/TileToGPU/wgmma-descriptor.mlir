// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a" --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// The wgmma shared-memory descriptors (PTX ISA, "Matrix Descriptor
// Format"): bits 0-13 the start address >> 4, 16-29 the leading byte offset
// (LBO) >> 4, 32-45 the stride byte offset (SBO) >> 4, 62-63 the swizzle
// (1 = 128-byte, 2 = 64-byte, 3 = 32-byte). The bits that do not depend on
// the address are one i64 constant OR-ed into the address bits.

// K-major operands (K innermost) in 64-byte swizzle (32 f16 per row): eight
// rows of 64 bytes are 512 bytes apart (SBO 512 >> 4 = 32), LBO 1 (unused):
//   2 << 62 | 32 << 32 | 1 << 16 = 0x8000002000010000.
// CHECK-LABEL: func.func @k_major_64b
// CHECK-DAG: %[[FIXED:.*]] = arith.constant -9223371899415756800 : i64
// CHECK-DAG: %[[MASK:.*]] = arith.constant 16383 : i64
// CHECK: %[[START:.*]] = arith.andi %{{.*}}, %[[MASK]] : i64
// CHECK-NEXT: arith.ori %[[START]], %[[FIXED]] : i64
func.func @k_major_64b(%A: memref<64x32xf16>, %B: memref<64x32xf16>, %C: memref<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    tile.copy %A[0, 0] -> %As : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %Bs : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.gemm %As, %Bs, %acc transpose_b : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x64xf32>, memref<64x64xf32>
  }
  return
}

// -----

// 128-byte swizzle (64 f16 per row), K-major: SBO 1024 >> 4 = 64:
//   1 << 62 | 64 << 32 | 1 << 16 = 0x4000004000010000.
// B as K x N (N innermost) is MN-major: its LBO is the bytes of one
// 64-column panel, 64 rows x 128 bytes = 8192 >> 4 = 512 (B has 128
// columns, two panels), SBO 1024 >> 4 = 64 again:
//   1 << 62 | 64 << 32 | 512 << 16 = 0x4000004002000000.
// CHECK-LABEL: func.func @mn_major_128b
// CHECK-DAG: arith.constant 4611686293305360384 : i64
// CHECK-DAG: arith.constant 4611686293338849280 : i64
func.func @mn_major_128b(%A: memref<64x64xf16>, %B: memref<64x128xf16>, %C: memref<64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x128xf32>
    tile.copy %A[0, 0] -> %As : memref<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %Bs : memref<64x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x128xf32>
    tile.gemm %As, %Bs, %acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x128xf32>
    tile.copy %acc -> %C[0, 0] : !tile.fragment<64x128xf32>, memref<64x128xf32>
  }
  return
}
