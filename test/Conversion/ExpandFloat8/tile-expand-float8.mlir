// RUN: tile-opt %s --tile-expand-float8 --split-input-file --verify-diagnostics | FileCheck %s --implicit-check-not="to f8E" --implicit-check-not="f8E4M3FN to" --implicit-check-not="f8E5M2 to" --implicit-check-not="f8E4M3FNUZ to" --implicit-check-not="f8E5M2FNUZ to"

// Extension: the f8 bits as an integer, moved into an f32's; the result is
// the f32 as bits, then narrowed (exactly) where the target is f16.
// CHECK-LABEL: func.func @extend
// CHECK-SAME: (%[[X:.+]]: f8E4M3FN, %[[V:.+]]: vector<4xf8E5M2>)
// CHECK: %[[BITS:.+]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK: arith.extui %[[BITS]] : i8 to i32
// CHECK: %[[F32:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK: %[[VBITS:.+]] = arith.bitcast %[[V]] : vector<4xf8E5M2> to vector<4xi8>
// CHECK: arith.extui %[[VBITS]] : vector<4xi8> to vector<4xi32>
// CHECK: %[[VF32:.+]] = arith.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK: %[[VF16:.+]] = arith.truncf %[[VF32]] : vector<4xf32> to vector<4xf16>
// CHECK: return %[[F32]], %[[VF16]]
func.func @extend(%x: f8E4M3FN, %v: vector<4xf8E5M2>) -> (f32, vector<4xf16>) {
  %0 = arith.extf %x : f8E4M3FN to f32
  %1 = arith.extf %v : vector<4xf8E5M2> to vector<4xf16>
  return %0, %1 : f32, vector<4xf16>
}

// -----

// Truncation: f16 is extended to f32 first; f32 and f64 are rounded on
// their bits, in integers of their width, and the code is narrowed to i8.
// CHECK-LABEL: func.func @truncate
// CHECK-SAME: (%[[H:.+]]: vector<8xf16>, %[[D:.+]]: f64)
// CHECK: %[[WIDE:.+]] = arith.extf %[[H]] : vector<8xf16> to vector<8xf32>
// CHECK: arith.bitcast %[[WIDE]] : vector<8xf32> to vector<8xi32>
// CHECK: %[[CODE:.+]] = arith.ori %{{.+}}, %{{.+}} : vector<8xi8>
// CHECK: %[[R:.+]] = arith.bitcast %[[CODE]] : vector<8xi8> to vector<8xf8E4M3FN>
// CHECK: arith.bitcast %[[D]] : f64 to i64
// CHECK: arith.trunci %{{.+}} : i64 to i8
// CHECK: %[[S:.+]] = arith.bitcast %{{.+}} : i8 to f8E5M2
// CHECK: return %[[R]], %[[S]]
func.func @truncate(%h: vector<8xf16>, %d: f64) -> (vector<8xf8E4M3FN>, f8E5M2) {
  %0 = arith.truncf %h : vector<8xf16> to vector<8xf8E4M3FN>
  %1 = arith.truncf %d : f64 to f8E5M2
  return %0, %1 : vector<8xf8E4M3FN>, f8E5M2
}

// -----

// The FNUZ types (bias 8 and 16): every exponent is finite, and the
// negative zero's code 0x80 is the one NaN, a quiet f32 NaN (0x7fc00000)
// after extension; f8E4M3FNUZ's subnormal step is 2^-10 and its exponent
// moves by 127 - 8 (0x3b000000 = 998244352 in the f32's bits).
// CHECK-LABEL: func.func @extend_fnuz
// CHECK-SAME: (%[[X:.+]]: f8E4M3FNUZ, %[[V:.+]]: vector<4xf8E5M2FNUZ>)
// CHECK: %[[BITS:.+]] = arith.bitcast %[[X]] : f8E4M3FNUZ to i8
// CHECK: %[[I32:.+]] = arith.extui %[[BITS]] : i8 to i32
// CHECK: arith.constant 998244352 : i32
// CHECK: arith.constant 9.765625E-4 : f32
// CHECK: %[[NEGZERO:.+]] = arith.constant 128 : i32
// CHECK: %[[ISNAN:.+]] = arith.cmpi eq, %[[I32]], %[[NEGZERO]] : i32
// CHECK: %[[QNAN:.+]] = arith.constant 2143289344 : i32
// CHECK: %[[SEL:.+]] = arith.select %[[ISNAN]], %[[QNAN]], %{{.+}} : i32
// CHECK: %[[F32:.+]] = arith.bitcast %[[SEL]] : i32 to f32
// CHECK: arith.bitcast %[[V]] : vector<4xf8E5M2FNUZ> to vector<4xi8>
// CHECK: arith.constant dense<931135488> : vector<4xi32>
// CHECK: arith.constant dense<7.62939453E-6> : vector<4xf32>
// CHECK: arith.constant dense<2143289344> : vector<4xi32>
// CHECK: %[[VF32:.+]] = arith.bitcast %{{.+}} : vector<4xi32> to vector<4xf32>
// CHECK: %[[VF64:.+]] = arith.extf %[[VF32]] : vector<4xf32> to vector<4xf64>
// CHECK: return %[[F32]], %[[VF64]]
func.func @extend_fnuz(%x: f8E4M3FNUZ, %v: vector<4xf8E5M2FNUZ>) -> (f32, vector<4xf64>) {
  %0 = arith.extf %x : f8E4M3FNUZ to f32
  %1 = arith.extf %v : vector<4xf8E5M2FNUZ> to vector<4xf64>
  return %0, %1 : f32, vector<4xf64>
}

// -----

// Truncation into the FNUZ types: codes from 0x80 up (one past the
// largest finite value, 0x7f) overflow, and NaN sources become 0x80 too,
// whose sign bit is set already; a code of zero takes no sign (no -0).
// CHECK-LABEL: func.func @truncate_fnuz
// CHECK-SAME: (%[[X:.+]]: f32, %[[V:.+]]: vector<4xbf16>)
// CHECK: arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[OVER:.+]] = arith.constant 128 : i32
// CHECK: %[[CLAMPED:.+]] = arith.minui %{{.+}}, %[[OVER]] : i32
// CHECK: %[[NAN:.+]] = arith.constant 128 : i32
// CHECK: %[[CODE:.+]] = arith.select %{{.+}}, %[[NAN]], %[[CLAMPED]] : i32
// CHECK: %[[SIGN:.+]] = arith.shli %{{.+}}, %{{.+}} : i8
// CHECK: %[[CODE8:.+]] = arith.trunci %[[CODE]] : i32 to i8
// CHECK: %[[ZERO:.+]] = arith.constant 0 : i8
// CHECK: %[[ISZERO:.+]] = arith.cmpi eq, %[[CODE8]], %[[ZERO]] : i8
// CHECK: %[[ZERO2:.+]] = arith.constant 0 : i8
// CHECK: %[[NOSIGN:.+]] = arith.select %[[ISZERO]], %[[ZERO2]], %[[SIGN]] : i8
// CHECK: %[[BITS:.+]] = arith.ori %[[CODE8]], %[[NOSIGN]] : i8
// CHECK: %[[R:.+]] = arith.bitcast %[[BITS]] : i8 to f8E4M3FNUZ
// CHECK: %[[WIDE:.+]] = arith.extf %[[V]] : vector<4xbf16> to vector<4xf32>
// CHECK: arith.minui %{{.+}}, %{{.+}} : vector<4xi32>
// CHECK: arith.cmpi eq, %{{.+}}, %{{.+}} : vector<4xi8>
// CHECK: %[[S:.+]] = arith.bitcast %{{.+}} : vector<4xi8> to vector<4xf8E5M2FNUZ>
// CHECK: return %[[R]], %[[S]]
func.func @truncate_fnuz(%x: f32, %v: vector<4xbf16>) -> (f8E4M3FNUZ, vector<4xf8E5M2FNUZ>) {
  %0 = arith.truncf %x : f32 to f8E4M3FNUZ
  %1 = arith.truncf %v : vector<4xbf16> to vector<4xf8E5M2FNUZ>
  return %0, %1 : f8E4M3FNUZ, vector<4xf8E5M2FNUZ>
}

// -----

// Conversions that do not involve f8 stay.
// CHECK-LABEL: func.func @other
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: arith.extf %{{.+}} : bf16 to f32
func.func @other(%x: f32, %y: bf16) -> (f16, f32) {
  %0 = arith.truncf %x : f32 to f16
  %1 = arith.extf %y : bf16 to f32
  return %0, %1 : f16, f32
}

// -----

func.func @toward_zero(%x: f32) -> f8E4M3FN {
  // expected-error @below {{'arith.truncf' op converts 'f32' to 'f8E4M3FN', which tile-expand-float8 cannot expand (f8 conversions round to nearest even, from sources up to f64)}}
  %0 = arith.truncf %x toward_zero : f32 to f8E4M3FN
  return %0 : f8E4M3FN
}

