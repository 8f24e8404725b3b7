// Conversions to and from f8E4M3FN, f8E5M2, f8E4M3FNUZ and f8E5M2FNUZ
// (tile-expand-float8) on the host: f32, f16 and f64 values that exercise
// every rounding case (each f8 value, each tie between neighbours and the
// source's next values on both sides of it, overflow, infinities, NaN,
// negative zero, subnormals; float8.py) are copied into f8 fragments and
// out to f8 tensors, which must hold the values rounded to nearest even as
// float8.py rounds them with exact fractions (in the FNUZ types, whose
// 0x80 is NaN, a negative value that rounds to zero must become +0); every
// f8 code is copied out to f32 and f64, which must hold its exact value.
// 75 rows of 64 in tiles of 16 rows: the last tile is ragged.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../float8.py %t 75
// RUN: tile-run %s -e truncate_32_e4m3 --target=cpu --no-cache --arg @%t/x32.npy --arg f8E4M3FN:75x64=zeros --check 1=%t/e4m3_32.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_16_e4m3 --target=cpu --no-cache --arg @%t/x16.npy --arg f8E4M3FN:75x64=zeros --check 1=%t/e4m3_16.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_64_e4m3 --target=cpu --no-cache --arg @%t/x64.npy --arg f8E4M3FN:75x64=zeros --check 1=%t/e4m3_64.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_32_e5m2 --target=cpu --no-cache --arg @%t/x32.npy --arg f8E5M2:75x64=zeros --check 1=%t/e5m2_32.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_16_e5m2 --target=cpu --no-cache --arg @%t/x16.npy --arg f8E5M2:75x64=zeros --check 1=%t/e5m2_16.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_64_e5m2 --target=cpu --no-cache --arg @%t/x64.npy --arg f8E5M2:75x64=zeros --check 1=%t/e5m2_64.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e extend_e4m3 --target=cpu --no-cache --arg f8E4M3FN:75x64=@%t/codes_e4m3.npy --arg f32:75x64=zeros --arg f64:75x64=zeros --check 1=%t/codes_e4m3.npy --check 2=%t/codes_e4m3.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXTEND
// RUN: tile-run %s -e extend_e5m2 --target=cpu --no-cache --arg f8E5M2:75x64=@%t/codes_e5m2.npy --arg f32:75x64=zeros --arg f64:75x64=zeros --check 1=%t/codes_e5m2.npy --check 2=%t/codes_e5m2.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXTEND
// RUN: tile-run %s -e truncate_32_e4m3fnuz --target=cpu --no-cache --arg @%t/x32.npy --arg f8E4M3FNUZ:75x64=zeros --check 1=%t/e4m3fnuz_32.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_16_e4m3fnuz --target=cpu --no-cache --arg @%t/x16.npy --arg f8E4M3FNUZ:75x64=zeros --check 1=%t/e4m3fnuz_16.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_64_e4m3fnuz --target=cpu --no-cache --arg @%t/x64.npy --arg f8E4M3FNUZ:75x64=zeros --check 1=%t/e4m3fnuz_64.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_32_e5m2fnuz --target=cpu --no-cache --arg @%t/x32.npy --arg f8E5M2FNUZ:75x64=zeros --check 1=%t/e5m2fnuz_32.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_16_e5m2fnuz --target=cpu --no-cache --arg @%t/x16.npy --arg f8E5M2FNUZ:75x64=zeros --check 1=%t/e5m2fnuz_16.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e truncate_64_e5m2fnuz --target=cpu --no-cache --arg @%t/x64.npy --arg f8E5M2FNUZ:75x64=zeros --check 1=%t/e5m2fnuz_64.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e extend_e4m3fnuz --target=cpu --no-cache --arg f8E4M3FNUZ:75x64=@%t/codes_e4m3fnuz.npy --arg f32:75x64=zeros --arg f64:75x64=zeros --check 1=%t/codes_e4m3fnuz.npy --check 2=%t/codes_e4m3fnuz.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXTEND
// RUN: tile-run %s -e extend_e5m2fnuz --target=cpu --no-cache --arg f8E5M2FNUZ:75x64=@%t/codes_e5m2fnuz.npy --arg f32:75x64=zeros --arg f64:75x64=zeros --check 1=%t/codes_e5m2fnuz.npy --check 2=%t/codes_e5m2fnuz.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=EXTEND
// CHECK: check arg #1 against {{.*}}.npy: ok
// EXTEND: check arg #1 against {{.*}}.npy: ok
// EXTEND: check arg #2 against {{.*}}.npy: ok

func.func @truncate_32_e4m3(%X: memref<?x64xf32>, %Y: memref<?x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf32>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FN>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf32>, !tile.fragment<16x64xf8E4M3FN>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E4M3FN>, memref<?x64xf8E4M3FN>
  }
  return
}

func.func @truncate_16_e4m3(%X: memref<?x64xf16>, %Y: memref<?x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf16>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FN>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf16>, !tile.fragment<16x64xf8E4M3FN>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E4M3FN>, memref<?x64xf8E4M3FN>
  }
  return
}

func.func @truncate_64_e4m3(%X: memref<?x64xf64>, %Y: memref<?x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf64>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FN>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf64>, !tile.fragment<16x64xf8E4M3FN>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E4M3FN>, memref<?x64xf8E4M3FN>
  }
  return
}

func.func @truncate_32_e5m2(%X: memref<?x64xf32>, %Y: memref<?x64xf8E5M2>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf32>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf32>, !tile.fragment<16x64xf8E5M2>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E5M2>, memref<?x64xf8E5M2>
  }
  return
}

func.func @truncate_16_e5m2(%X: memref<?x64xf16>, %Y: memref<?x64xf8E5M2>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf16>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf16>, !tile.fragment<16x64xf8E5M2>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E5M2>, memref<?x64xf8E5M2>
  }
  return
}

func.func @truncate_64_e5m2(%X: memref<?x64xf64>, %Y: memref<?x64xf8E5M2>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf64>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf64>, !tile.fragment<16x64xf8E5M2>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E5M2>, memref<?x64xf8E5M2>
  }
  return
}

func.func @extend_e4m3(%X: memref<?x64xf8E4M3FN>, %Y: memref<?x64xf32>, %Z: memref<?x64xf64>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf8E4M3FN>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FN>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf8E4M3FN>, !tile.fragment<16x64xf8E4M3FN>
    %g = tile.fragment : !tile.fragment<16x64xf32>
    tile.copy %f -> %g : !tile.fragment<16x64xf8E4M3FN>, !tile.fragment<16x64xf32>
    tile.copy %g -> %Y[%r, 0] : !tile.fragment<16x64xf32>, memref<?x64xf32>
    tile.copy %f -> %Z[%r, 0] : !tile.fragment<16x64xf8E4M3FN>, memref<?x64xf64>
  }
  return
}

func.func @extend_e5m2(%X: memref<?x64xf8E5M2>, %Y: memref<?x64xf32>, %Z: memref<?x64xf64>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf8E5M2>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf8E5M2>, !tile.fragment<16x64xf8E5M2>
    %g = tile.fragment : !tile.fragment<16x64xf32>
    tile.copy %f -> %g : !tile.fragment<16x64xf8E5M2>, !tile.fragment<16x64xf32>
    tile.copy %g -> %Y[%r, 0] : !tile.fragment<16x64xf32>, memref<?x64xf32>
    tile.copy %f -> %Z[%r, 0] : !tile.fragment<16x64xf8E5M2>, memref<?x64xf64>
  }
  return
}

func.func @truncate_32_e4m3fnuz(%X: memref<?x64xf32>, %Y: memref<?x64xf8E4M3FNUZ>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf32>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf32>, !tile.fragment<16x64xf8E4M3FNUZ>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E4M3FNUZ>, memref<?x64xf8E4M3FNUZ>
  }
  return
}

func.func @truncate_16_e4m3fnuz(%X: memref<?x64xf16>, %Y: memref<?x64xf8E4M3FNUZ>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf16>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf16>, !tile.fragment<16x64xf8E4M3FNUZ>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E4M3FNUZ>, memref<?x64xf8E4M3FNUZ>
  }
  return
}

func.func @truncate_64_e4m3fnuz(%X: memref<?x64xf64>, %Y: memref<?x64xf8E4M3FNUZ>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf64>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf64>, !tile.fragment<16x64xf8E4M3FNUZ>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E4M3FNUZ>, memref<?x64xf8E4M3FNUZ>
  }
  return
}

func.func @truncate_32_e5m2fnuz(%X: memref<?x64xf32>, %Y: memref<?x64xf8E5M2FNUZ>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf32>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf32>, !tile.fragment<16x64xf8E5M2FNUZ>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E5M2FNUZ>, memref<?x64xf8E5M2FNUZ>
  }
  return
}

func.func @truncate_16_e5m2fnuz(%X: memref<?x64xf16>, %Y: memref<?x64xf8E5M2FNUZ>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf16>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf16>, !tile.fragment<16x64xf8E5M2FNUZ>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E5M2FNUZ>, memref<?x64xf8E5M2FNUZ>
  }
  return
}

func.func @truncate_64_e5m2fnuz(%X: memref<?x64xf64>, %Y: memref<?x64xf8E5M2FNUZ>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf64>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf64>, !tile.fragment<16x64xf8E5M2FNUZ>
    tile.copy %f -> %Y[%r, 0] : !tile.fragment<16x64xf8E5M2FNUZ>, memref<?x64xf8E5M2FNUZ>
  }
  return
}

func.func @extend_e4m3fnuz(%X: memref<?x64xf8E4M3FNUZ>, %Y: memref<?x64xf32>, %Z: memref<?x64xf64>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf8E4M3FNUZ>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E4M3FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf8E4M3FNUZ>, !tile.fragment<16x64xf8E4M3FNUZ>
    %g = tile.fragment : !tile.fragment<16x64xf32>
    tile.copy %f -> %g : !tile.fragment<16x64xf8E4M3FNUZ>, !tile.fragment<16x64xf32>
    tile.copy %g -> %Y[%r, 0] : !tile.fragment<16x64xf32>, memref<?x64xf32>
    tile.copy %f -> %Z[%r, 0] : !tile.fragment<16x64xf8E4M3FNUZ>, memref<?x64xf64>
  }
  return
}

func.func @extend_e5m2fnuz(%X: memref<?x64xf8E5M2FNUZ>, %Y: memref<?x64xf32>, %Z: memref<?x64xf64>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %rows = memref.dim %X, %c0 : memref<?x64xf8E5M2FNUZ>
  %grid = arith.ceildivui %rows, %c16 : index
  tile.kernel grid(%bx) in (%grid) threads(64) {
    %r = arith.muli %bx, %c16 : index
    %f = tile.fragment : !tile.fragment<16x64xf8E5M2FNUZ>
    tile.copy %X[%r, 0] -> %f : memref<?x64xf8E5M2FNUZ>, !tile.fragment<16x64xf8E5M2FNUZ>
    %g = tile.fragment : !tile.fragment<16x64xf32>
    tile.copy %f -> %g : !tile.fragment<16x64xf8E5M2FNUZ>, !tile.fragment<16x64xf32>
    tile.copy %g -> %Y[%r, 0] : !tile.fragment<16x64xf32>, memref<?x64xf32>
    tile.copy %f -> %Z[%r, 0] : !tile.fragment<16x64xf8E5M2FNUZ>, memref<?x64xf64>
  }
  return
}
