// RUN: tile-opt %s --tile-attach-target=chip=gfx942 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse --split-input-file | FileCheck %s
// RUN: tile-opt %s --tile-attach-target=chip=gfx950 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse --split-input-file | FileCheck %s --check-prefix=GFX950

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

// -----

// B as K x N whose layout keeps K innermost (an explicit #tile.shared
// layout): its K-consecutive elements are one vector load as well.
// CHECK-LABEL: func.func @mfma_k_inner_b
// CHECK: %[[A:.*]] = vector.load %view[%{{.*}}] : {{.*}}, vector<4xf16>
// CHECK: %[[B:.*]] = vector.load %view_0[%{{.*}}] : {{.*}}, vector<4xf16>
// CHECK: amdgpu.mfma 16x16x16 %[[A]] * %[[B]]
func.func @mfma_k_inner_b(%A: memref<16x16xf16>, %B: memref<16x16xf16>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared layout(#tile.shared<[[16:1], [16:16]], swizzle 32>) : memref<16x16xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    tile.gemm %a, %b, %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}

// -----

// fp8 -> f32 is MFMA 16x16x32 where the chip's instructions take the fp8
// family: OCP's (f8E4M3FN is fp8, f8E5M2 bf8; A and B may differ) on gfx950,
// eight K-consecutive elements per lane in one LDS read (A as M x K, B as
// N x K), the vectors of their own element types. gfx942's fp8 MFMA takes
// the FNUZ types only: there OCP fp8 is extended to f32 for FMAs.
// CHECK-LABEL: func.func @mfma_fp8_ocp
// CHECK-NOT: amdgpu.mfma
// CHECK: arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK: math.fma
// CHECK-NOT: amdgpu.mfma
// GFX950-LABEL: func.func @mfma_fp8_ocp
// GFX950: %[[A:.*]] = vector.load %view[%{{.*}}] : memref<512xf8E4M3FN, #gpu.address_space<workgroup>>, vector<8xf8E4M3FN>
// GFX950: %[[B:.*]] = vector.load %view_0[%{{.*}}] : memref<512xf8E5M2, #gpu.address_space<workgroup>>, vector<8xf8E5M2>
// GFX950: %[[C:.*]] = vector.from_elements {{.*}} : vector<4xf32>
// GFX950: amdgpu.mfma 16x16x32 %[[A]] * %[[B]] + %[[C]] {{.*}} : vector<8xf8E4M3FN>, vector<8xf8E5M2>, vector<4xf32>
// GFX950-NOT: amdgpu.mfma
// GFX950-NOT: math.fma
func.func @mfma_fp8_ocp(%A: memref<16x32xf8E4M3FN>, %B: memref<16x32xf8E5M2>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf8E4M3FN, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x32xf8E5M2, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    tile.gemm %a, %b, %c transpose_b : memref<16x32xf8E4M3FN, #gpu.address_space<workgroup>>, memref<16x32xf8E5M2, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}

// -----

// The FNUZ types the other way round: MFMA on gfx942, FMAs on gfx950.
// CHECK-LABEL: func.func @mfma_fp8_fnuz
// CHECK: amdgpu.mfma 16x16x32 {{.*}} : vector<8xf8E4M3FNUZ>, vector<8xf8E5M2FNUZ>, vector<4xf32>
// GFX950-LABEL: func.func @mfma_fp8_fnuz
// GFX950-NOT: amdgpu.mfma
// GFX950: math.fma
// GFX950-NOT: amdgpu.mfma
func.func @mfma_fp8_fnuz(%A: memref<16x32xf8E4M3FNUZ>, %B: memref<16x32xf8E5M2FNUZ>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    tile.gemm %a, %b, %c transpose_b : memref<16x32xf8E4M3FNUZ, #gpu.address_space<workgroup>>, memref<16x32xf8E5M2FNUZ, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}

// -----

// Two K steps with both operands in LDS go as a pair sharing one order of
// K: lane group g = l / 16 takes K 8g .. 8g + 7 of the pair, one 16-byte
// load per operand (A M x K, B N x K: K inner in both), the lower four for
// the first MFMA and the upper four for the second; over the four groups
// each MFMA still sums 16 of the 32 K and the two together all of them.
// CHECK-LABEL: func.func @mfma_pair
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c64 : index
// CHECK: %[[QUAD:.*]] = arith.divui %[[LANE]], %c16 : index
// CHECK: arith.muli %[[QUAD]], %c8 : index
// CHECK: %[[A:.*]] = vector.load %view[%{{.*}}] : memref<512xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: %[[A0:.*]] = vector.shuffle %[[A]], %[[A]] [0, 1, 2, 3]
// CHECK: %[[A1:.*]] = vector.shuffle %[[A]], %[[A]] [4, 5, 6, 7]
// CHECK: %[[B:.*]] = vector.load %view_0[%{{.*}}] : memref<512xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: %[[B0:.*]] = vector.shuffle %[[B]], %[[B]] [0, 1, 2, 3]
// CHECK: %[[B1:.*]] = vector.shuffle %[[B]], %[[B]] [4, 5, 6, 7]
// CHECK: amdgpu.mfma 16x16x16 %[[A0]] * %[[B0]]
// CHECK: amdgpu.mfma 16x16x16 %[[A1]] * %[[B1]]
// CHECK-NOT: amdgpu.mfma
// GFX950-LABEL: func.func @mfma_pair
// GFX950-COUNT-2: vector.load {{.*}}, vector<8xf16>
// GFX950-COUNT-2: amdgpu.mfma 16x16x16
func.func @mfma_pair(%A: memref<16x32xf16>, %B: memref<16x32xf16>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    tile.gemm %a, %b, %c transpose_b : memref<16x32xf16, #gpu.address_space<workgroup>>, memref<16x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}
