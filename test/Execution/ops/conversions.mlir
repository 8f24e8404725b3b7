// Copies convert element types (f32 -> f16 on the way out, i8 -> i32 on
// the way in, f64 -> f16 and f64 -> bf16, which a CPU without AVX512-FP16 or
// AVX512-BF16 does through compiler-rt's builtins), fragments convert
// between each other, and pads fill reads past the tensor's end.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "np.concatenate([x, np.full((2, 6), -2.5)]).astype(np.float16)" x=randn:float32:3x6
// RUN: tile-run %s -e narrow --target=cpu --no-cache --arg @%t/x.npy --arg f16:5x6=zeros --check 1=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t "x.astype(np.int32) * 3" x=int:int8:4x4
// RUN: tile-run %s -e widen --target=cpu --no-cache --arg @%t/x.npy --arg i32:4x4=zeros --check 1=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t "x.astype(np.float16)" x=randn:float64:7x5
// RUN: tile-run %s -e narrow_f64 --target=cpu --no-cache --arg @%t/x.npy --arg f16:7x5=zeros --check 1=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// Integers are exact in bf16: one rounding or two give them alike.
// RUN: %python %S/../reference.py eval %t "x.astype(np.float32)" x=int:float64:7x5
// RUN: tile-run %s -e narrow_f64_bf16 --target=cpu --no-cache --arg @%t/x.npy --arg f32:7x5=zeros --check 1=%t/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

func.func @narrow(%X: memref<3x6xf32>, %Y: memref<5x6xf16>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<5x6xf32>
    %g = tile.fragment : !tile.fragment<5x6xf32>
    tile.copy %X[0, 0] -> %f {pad = -2.5 : f32} : memref<3x6xf32>, !tile.fragment<5x6xf32>
    tile.copy %f -> %g : !tile.fragment<5x6xf32>, !tile.fragment<5x6xf32>
    tile.copy %g -> %Y[0, 0] : !tile.fragment<5x6xf32>, memref<5x6xf16>
  }
  return
}

func.func @widen(%X: memref<4x4xi8>, %Y: memref<4x4xi32>) {
  %three = arith.constant 3 : i32
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<4x4xi32>
    tile.copy %X[0, 0] -> %f : memref<4x4xi8>, !tile.fragment<4x4xi32>
    tile.parallel (%i, %j) in (4, 4) {
      %x = tile.load %f[%i, %j] : !tile.fragment<4x4xi32>
      %y = arith.muli %x, %three : i32
      tile.store %y, %f[%i, %j] : !tile.fragment<4x4xi32>
    }
    tile.copy %f -> %Y[0, 0] : !tile.fragment<4x4xi32>, memref<4x4xi32>
  }
  return
}

func.func @narrow_f64(%X: memref<7x5xf64>, %Y: memref<7x5xf16>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<7x5xf16>
    tile.copy %X[0, 0] -> %f : memref<7x5xf64>, !tile.fragment<7x5xf16>
    tile.copy %f -> %Y[0, 0] : !tile.fragment<7x5xf16>, memref<7x5xf16>
  }
  return
}

func.func @narrow_f64_bf16(%X: memref<7x5xf64>, %Y: memref<7x5xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<7x5xbf16>
    tile.copy %X[0, 0] -> %f : memref<7x5xf64>, !tile.fragment<7x5xbf16>
    tile.copy %f -> %Y[0, 0] : !tile.fragment<7x5xbf16>, memref<7x5xf32>
  }
  return
}
