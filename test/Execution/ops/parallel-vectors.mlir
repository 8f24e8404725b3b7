// tile.parallel bodies that the GPU runs on vectors (runs of a thread's
// consecutive iterations, 16-byte accesses): int8 weights dequantized from
// shared memory with a per-row scale read from global memory; a fused
// epilogue (bias, ReLU, conversion) from a fragment to global memory at a
// run-time column offset; a transposing store (element by element); and a
// tensor whose rows are not aligned for vectors (a view one column in),
// which takes the scalar code. Ragged: the tensors end inside the tiles.
// test/Integration/ops.test runs the same on the GPU.
// RUN: rm -rf %t && mkdir -p %t/d %t/e %t/t %t/u
// RUN: %python %S/../reference.py eval %t/d "(x.astype(np.float32) * s[:, None].astype(np.float32)).astype(np.float16)" x=arange:int8:40x72 s=randn:float16:40
// RUN: tile-run %s -e dequant --target=cpu --no-cache --arg @%t/d/x.npy --arg @%t/d/s.npy --arg f16:40x72=zeros --check 2=%t/d/ref.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=ARG2
// RUN: %python %S/../reference.py eval %t/e "np.maximum(a + b.astype(np.float32), 0).astype(np.float16)" a=randn:float32:50x72 b=randn:float16:72
// RUN: tile-run %s -e epilogue --target=cpu --no-cache --arg @%t/e/a.npy --arg @%t/e/b.npy --arg f16:50x72=zeros --check 2=%t/e/ref.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=ARG2
// RUN: %python %S/../reference.py eval %t/t "np.ascontiguousarray(x.T) * 2" x=randn:float32:20x36
// RUN: tile-run %s -e transpose --target=cpu --no-cache --arg @%t/t/x.npy --arg f32:36x20=zeros --check 1=%t/t/ref.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=ARG1
// RUN: %python %S/../reference.py eval %t/u "np.ascontiguousarray(x[:, 1:]) + 1" x=randn:float32:10x37
// RUN: tile-run %s -e unaligned --target=cpu --no-cache --arg @%t/u/x.npy --arg f32:10x36=zeros --check 1=%t/u/ref.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=ARG1
// Every int8 value, converted signed and unsigned to f16 and f32 (the GPU
// builds the floats' bits, tile-int8-to-float-by-bits).
// RUN: mkdir -p %t/cs %t/cu %t/cs32 %t/cu16
// RUN: %python %S/../reference.py eval %t/cs "x.astype(np.float16)" x=arange:int8:8x64
// RUN: %python %S/../reference.py eval %t/cu "x.view(np.uint8).astype(np.float32)" x=arange:int8:8x64
// RUN: %python %S/../reference.py eval %t/cs32 "x.astype(np.float32)" x=arange:int8:8x64
// RUN: %python %S/../reference.py eval %t/cu16 "x.view(np.uint8).astype(np.float16)" x=arange:int8:8x64
// RUN: tile-run %s -e convert --target=cpu --no-cache --arg @%t/cs/x.npy --arg f16:8x64=zeros --arg f32:8x64=zeros --arg f32:8x64=zeros --arg f16:8x64=zeros --check 1=%t/cs/ref.npy --check 2=%t/cu/ref.npy --check 3=%t/cs32/ref.npy --check 4=%t/cu16/ref.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=CONVERT
// Wider integers in a range the analysis bounds (a sign-extended byte, a
// 10-bit mask) convert by bits too, one element per word.
// RUN: mkdir -p %t/w16 %t/w32 %t/m16
// RUN: %python %S/../reference.py eval %t/w16 "x.astype(np.float16)" x=arange:int16:8x64
// RUN: %python %S/../reference.py eval %t/w32 "x.astype(np.int8).astype(np.float32)" x=arange:int16:8x64
// RUN: %python %S/../reference.py eval %t/m16 "(x.astype(np.int32) & 1023).astype(np.float16)" x=arange:int16:8x64
// RUN: tile-run %s -e convert_wide --target=cpu --no-cache --arg @%t/w16/x.npy --arg f16:8x64=zeros --arg f32:8x64=zeros --arg f16:8x64=zeros --check 1=%t/w16/ref.npy --check 2=%t/w32/ref.npy --check 3=%t/m16/ref.npy --rtol 0 --atol 0 | FileCheck %s --check-prefix=WIDE
// WIDE-COUNT-3: check arg #{{[1-3]}} against {{.*}}ref.npy: ok
// CONVERT-COUNT-4: check arg #{{[1-4]}} against {{.*}}ref.npy: ok
// Two 4-bit weights a byte, unpacked with shifts and masks (the byte read
// once for both, the shift a constant per iteration) and scaled per group
// of 128 columns (one load per run).
// RUN: mkdir -p %t/n
// RUN: %python %S/../reference.py eval %t/n "np.ascontiguousarray((((x.astype(np.int32)[:, np.arange(512) // 2] >> ((np.arange(512) % 2) * 4)) & 15) - 8).astype(np.float32) * s.astype(np.float32)[:, np.arange(512) // 128])" x=arange:int8:32x256 s=randn:float16:32x4
// RUN: tile-run %s -e unpack --target=cpu --no-cache --arg @%t/n/x.npy --arg @%t/n/s.npy --arg f16:32x512=zeros --check 2=%t/n/ref.npy --rtol 1e-3 --atol 1e-3 | FileCheck %s --check-prefix=ARG2
// ARG1: check arg #1 against {{.*}}ref.npy: ok
// ARG2: check arg #2 against {{.*}}ref.npy: ok

func.func @dequant(%X: memref<40x72xi8>, %S: memref<40xf16>, %Y: memref<40x72xf16>) {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %x = tile.alloc_shared : memref<32x64xi8, #gpu.address_space<workgroup>>
    %w = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %row = arith.muli %bx, %c32 : index
    %col = arith.muli %by, %c64 : index
    tile.copy %X[%row, %col] -> %x : memref<40x72xi8>, memref<32x64xi8, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (32, 64) {
      %q = tile.load %x[%i, %j] : memref<32x64xi8, #gpu.address_space<workgroup>>
      %h = arith.sitofp %q : i8 to f16
      %r = arith.addi %row, %i : index
      %s = tile.load %S[%r] : memref<40xf16>
      %v = arith.mulf %h, %s : f16
      tile.store %v, %w[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
    }
    tile.copy %w -> %Y[%row, %col] : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<40x72xf16>
  }
  return
}

func.func @epilogue(%A: memref<50x72xf32>, %B: memref<72xf16>, %Y: memref<50x72xf16>) {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %acc = tile.fragment : !tile.fragment<32x64xf32>
    %row = arith.muli %bx, %c32 : index
    %col = arith.muli %by, %c64 : index
    tile.copy %A[%row, %col] -> %acc : memref<50x72xf32>, !tile.fragment<32x64xf32>
    tile.parallel (%i, %j) in (32, 64) {
      %a = tile.load %acc[%i, %j] : !tile.fragment<32x64xf32>
      %c = arith.addi %col, %j : index
      %b = tile.load %B[%c] : memref<72xf16>
      %bf = arith.extf %b : f16 to f32
      %s = arith.addf %a, %bf : f32
      %y = arith.maximumf %s, %zero : f32
      %h = arith.truncf %y : f32 to f16
      %r = arith.addi %row, %i : index
      tile.store %h, %Y[%r, %c] : memref<50x72xf16>
    }
  }
  return
}

func.func @transpose(%X: memref<20x36xf32>, %Y: memref<36x20xf32>) {
  %two = arith.constant 2.0 : f32
  tile.kernel grid(%bx) in (1) threads(64) {
    tile.parallel (%i, %j) in (32, 64) {
      %x = tile.load %X[%i, %j] : memref<20x36xf32>
      %y = arith.mulf %x, %two : f32
      tile.store %y, %Y[%j, %i] : memref<36x20xf32>
    }
  }
  return
}

func.func @unaligned(%X: memref<10x37xf32>, %Y: memref<10x36xf32>) {
  %one = arith.constant 1.0 : f32
  %V = memref.subview %X[0, 1] [10, 36] [1, 1] : memref<10x37xf32> to memref<10x36xf32, strided<[37, 1], offset: 1>>
  tile.kernel grid(%bx) in (1) threads(64) {
    tile.parallel (%i, %j) in (16, 64) {
      %x = tile.load %V[%i, %j] : memref<10x36xf32, strided<[37, 1], offset: 1>>
      %y = arith.addf %x, %one : f32
      tile.store %y, %Y[%i, %j] : memref<10x36xf32>
    }
  }
  return
}

func.func @convert(%X: memref<8x64xi8>, %S16: memref<8x64xf16>, %U32: memref<8x64xf32>, %S32: memref<8x64xf32>, %U16: memref<8x64xf16>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    tile.parallel (%i, %j) in (8, 64) {
      %x = tile.load %X[%i, %j] : memref<8x64xi8>
      %s16 = arith.sitofp %x : i8 to f16
      %u32 = arith.uitofp %x : i8 to f32
      %s32 = arith.sitofp %x : i8 to f32
      %u16 = arith.uitofp %x : i8 to f16
      tile.store %s16, %S16[%i, %j] : memref<8x64xf16>
      tile.store %u32, %U32[%i, %j] : memref<8x64xf32>
      tile.store %s32, %S32[%i, %j] : memref<8x64xf32>
      tile.store %u16, %U16[%i, %j] : memref<8x64xf16>
    }
  }
  return
}

func.func @unpack(%X: memref<32x256xi8>, %S: memref<32x4xf16>, %Y: memref<32x512xf16>) {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c15 = arith.constant 15 : i32
  %c8 = arith.constant 8 : i32
  tile.kernel grid(%bx) in (8) threads(128) {
    %x = tile.alloc_shared : memref<32x32xi8, #gpu.address_space<workgroup>>
    %w = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %k = arith.muli %bx, %c32 : index
    tile.copy %X[0, %k] -> %x : memref<32x256xi8>, memref<32x32xi8, #gpu.address_space<workgroup>>
    tile.parallel (%i, %j) in (32, 64) {
      %half = arith.floordivsi %j, %c2 : index
      %byte = tile.load %x[%i, %half] : memref<32x32xi8, #gpu.address_space<workgroup>>
      %odd = arith.remsi %j, %c2 : index
      %shift = arith.muli %odd, %c4 : index
      %wide = arith.extsi %byte : i8 to i32
      %amount = arith.index_cast %shift : index to i32
      %shifted = arith.shrsi %wide, %amount : i32
      %nibble = arith.andi %shifted, %c15 : i32
      %q = arith.subi %nibble, %c8 : i32
      %h = arith.sitofp %q : i32 to f16
      %kk = arith.muli %k, %c2 : index
      %col = arith.addi %kk, %j : index
      %group = arith.floordivsi %col, %c128 : index
      %s = tile.load %S[%i, %group] : memref<32x4xf16>
      %v = arith.mulf %h, %s : f16
      tile.store %v, %w[%i, %j] : memref<32x64xf16, #gpu.address_space<workgroup>>
    }
    %kk2 = arith.muli %k, %c2 : index
    tile.copy %w -> %Y[0, %kk2] : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<32x512xf16>
  }
  return
}

func.func @convert_wide(%X: memref<8x64xi16>, %A: memref<8x64xf16>, %B: memref<8x64xf32>, %C: memref<8x64xf16>) {
  %mask = arith.constant 1023 : i32
  tile.kernel grid(%bx) in (1) threads(32) {
    tile.parallel (%i, %j) in (8, 64) {
      %x = tile.load %X[%i, %j] : memref<8x64xi16>
      %a = arith.sitofp %x : i16 to f16
      %t = arith.trunci %x : i16 to i8
      %w = arith.extsi %t : i8 to i32
      %b = arith.sitofp %w : i32 to f32
      %x32 = arith.extsi %x : i16 to i32
      %m = arith.andi %x32, %mask : i32
      %c = arith.sitofp %m : i32 to f16
      tile.store %a, %A[%i, %j] : memref<8x64xf16>
      tile.store %b, %B[%i, %j] : memref<8x64xf32>
      tile.store %c, %C[%i, %j] : memref<8x64xf16>
    }
  }
  return
}
