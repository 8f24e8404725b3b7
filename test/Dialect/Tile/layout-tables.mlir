// RUN: tile-opt %s --test-tile-layout-tables -o /dev/null | FileCheck %s

// The mma.sync m16n8k16 accumulator: lanes 4g..4g+3 hold rows g and g + 8,
// two adjacent columns each.
// CHECK-LABEL: tile.fragment #tile.fragment<{{\[}}[2:s2, 8:t4], [4:t1, 2:s1]]>:
// CHECK-NEXT: T0:0  T0:1  T1:0  T1:1  T2:0  T2:1  T3:0  T3:1
// CHECK-NEXT: T4:0  T4:1  T5:0  T5:1  T6:0  T6:1  T7:0  T7:1
// CHECK-COUNT-6: {{^T}}
// CHECK-NEXT: T0:2  T0:3  T1:2  T1:3  T2:2  T2:3  T3:2  T3:3

// swizzle<64> on 32 f16 per row: rows come in pairs per 128-byte line and
// the 16-byte chunks of each pair are permuted by (row / 2) % 4.
// CHECK-LABEL: tile.alloc_shared #tile.swizzle<64>:
// CHECK-NEXT: {{^}}  0   1   2   3   4   5   6   7   8
// CHECK-NEXT: {{^}} 32  33
// CHECK-NEXT: {{^}} 72  73  74  75  76  77  78  79  64  65
func.func @f() {
  tile.kernel grid(%bx) in (1) threads(64) {
    %c = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %s = tile.alloc_shared layout(#tile.swizzle<64>) : memref<8x32xf16, #gpu.address_space<workgroup>>
  }
  return
}
