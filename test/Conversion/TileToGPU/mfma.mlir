// RUN: tile-opt %s --tile-attach-target=chip=gfx942 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse --split-input-file | FileCheck %s

// On CDNA a gemm runs on a 64-lane wave as amdgpu.mfma 16x16x16: lane l
// takes A[l % 16][4 (l / 16) + v] and B[4 (l / 16) + v][l % 16] for v < 4
// from LDS, and its four accumulator slots C[4 (l / 16) + v][l % 16] go in
// and come out as a vector<4xf32>. A's four elements are consecutive along
// K, which is A's stored inner dim: one vector load (ds_read_b64); B stored
// K x N is gathered element by element.
// CHECK-LABEL: func.func @mfma
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c64,
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c64 : index
// CHECK: %[[ROW:.*]] = arith.remui %[[LANE]], %c16 : index
// CHECK: %[[QUAD:.*]] = arith.divui %[[LANE]], %c16 : index
// CHECK: arith.muli %[[QUAD]], %c4 : index
// CHECK: %[[A:.*]] = vector.load %view[%{{.*}}] : memref<256xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK-COUNT-4: memref.load %view_0[
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK-COUNT-4: memref.load %alloca[
// CHECK: %[[C:.*]] = vector.from_elements {{.*}} : vector<4xf32>
// CHECK: %[[D:.*]] = amdgpu.mfma 16x16x16 %[[A]] * %[[B]] + %[[C]] {{.*}} : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK: vector.extract %[[D]][0]
// CHECK: vector.extract %[[D]][3]
// CHECK-NOT: amdgpu.mfma
func.func @mfma(%A: memref<16x16xf16>, %B: memref<16x16xf16>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    tile.gemm %a, %b, %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}

// -----

// B stored N x K (transpose_b): its four K-consecutive elements are one
// vector load too.
// CHECK-LABEL: func.func @mfma_nt
// CHECK: %[[A:.*]] = vector.load %view[%{{.*}}] : {{.*}}, vector<4xf16>
// CHECK: %[[B:.*]] = vector.load %view_0[%{{.*}}] : {{.*}}, vector<4xf16>
// CHECK: amdgpu.mfma 16x16x16 %[[A]] * %[[B]]
func.func @mfma_nt(%A: memref<16x16xf16>, %B: memref<16x16xf16>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    tile.gemm %a, %b, %c transpose_b : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}
