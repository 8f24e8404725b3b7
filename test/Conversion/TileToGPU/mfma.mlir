// RUN: tile-opt %s --tile-attach-target=chip=gfx942 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// On CDNA a gemm runs on a 64-lane wave as amdgpu.mfma 16x16x16: lane l
// gathers A[l % 16][4 (l / 16) + v] and B[4 (l / 16) + v][l % 16] for
// v < 4 from LDS, and its four accumulator slots C[4 (l / 16) + v][l % 16]
// go in and come out as a vector<4xf32>.
// CHECK-LABEL: func.func @mfma
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c64,
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c64 : index
// CHECK: %[[ROW:.*]] = arith.remui %[[LANE]], %c16 : index
// CHECK: %[[QUAD:.*]] = arith.divui %[[LANE]], %c16 : index
// CHECK: arith.muli %[[QUAD]], %c4 : index
// CHECK-COUNT-4: memref.load %view[
// CHECK: %[[A:.*]] = vector.from_elements {{.*}} : vector<4xf16>
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
