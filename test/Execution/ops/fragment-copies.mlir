// Copies between fragments of different layouts deliver every element (and
// every replica) to its place: in registers (with a conversion), by warp
// shuffles, and through shared memory across warps (to spread rows and to
// replicate). The GPU runs these in test/Integration/ops.test; the f64
// variant cannot shuffle (32-bit at most) and goes through shared memory.
// RUN: rm -rf %t && mkdir -p %t/h %t/f %t/d %t/r
// RUN: %python %S/../reference.py eval %t/h "x.astype(np.float16)" x=randn:float32:16x8
// RUN: tile-run %s -e in_thread --target=cpu --no-cache --arg @%t/h/x.npy --arg f16:16x8=zeros --check 1=%t/h/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/f "x * 2" x=randn:float32:16x8
// RUN: tile-run %s -e in_warp --target=cpu --no-cache --arg @%t/f/x.npy --arg f32:16x8=zeros --check 1=%t/f/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: tile-run %s -e across_warps --target=cpu --no-cache --arg @%t/f/x.npy --arg f32:16x8=zeros --check 1=%t/f/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/r "np.stack([x * 2, x * 2])" x=randn:float32:16x8
// RUN: tile-run %s -e replicated --target=cpu --no-cache --arg @%t/r/x.npy --arg f32:2x16x8=zeros --check 1=%t/r/ref.npy --rtol 0 --atol 0 | FileCheck %s
// RUN: %python %S/../reference.py eval %t/d "x * 2" x=randn:float64:16x8
// RUN: tile-run %s -e in_warp_f64 --target=cpu --no-cache --arg @%t/d/x.npy --arg f64:16x8=zeros --check 1=%t/d/ref.npy --rtol 0 --atol 0 | FileCheck %s
// CHECK: check arg #1 against {{.*}}ref.npy: ok

// The mma.sync accumulator layout to the same owners in f16.
func.func @in_thread(%X: memref<16x8xf32>, %Y: memref<16x8xf16>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %b = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf16>
    tile.copy %X[0, 0] -> %a : memref<16x8xf32>, !tile.fragment<16x8xf32>
    tile.copy %a -> %b : !tile.fragment<16x8xf32>, !tile.fragment<16x8xf16>
    tile.copy %b -> %Y[0, 0] : !tile.fragment<16x8xf16>, memref<16x8xf16>
  }
  return
}

// Lanes exchange elements: thread 4 * r0 + c1 -> thread r0 + 8 * c1. The
// destination is doubled in a tile.parallel so that a wrong lane shows.
func.func @in_warp(%X: memref<16x8xf32>, %Y: memref<16x8xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %b = tile.fragment layout(#tile.fragment<[[2:s2, 8:t1], [4:t8, 2:s1]]>) : !tile.fragment<16x8xf32>
    tile.copy %X[0, 0] -> %a : memref<16x8xf32>, !tile.fragment<16x8xf32>
    tile.copy %a -> %b : !tile.fragment<16x8xf32>, !tile.fragment<16x8xf32>
    tile.parallel (%i, %j) in (16, 8) {
      %x = tile.load %b[%i, %j] : !tile.fragment<16x8xf32>
      %y = arith.addf %x, %x : f32
      tile.store %y, %b[%i, %j] : !tile.fragment<16x8xf32>
    }
    tile.copy %b -> %Y[0, 0] : !tile.fragment<16x8xf32>, memref<16x8xf32>
  }
  return
}

func.func @in_warp_f64(%X: memref<16x8xf64>, %Y: memref<16x8xf64>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf64>
    %b = tile.fragment layout(#tile.fragment<[[2:s2, 8:t1], [4:t8, 2:s1]]>) : !tile.fragment<16x8xf64>
    tile.copy %X[0, 0] -> %a : memref<16x8xf64>, !tile.fragment<16x8xf64>
    tile.copy %a -> %b : !tile.fragment<16x8xf64>, !tile.fragment<16x8xf64>
    tile.parallel (%i, %j) in (16, 8) {
      %x = tile.load %b[%i, %j] : !tile.fragment<16x8xf64>
      %y = arith.addf %x, %x : f64
      tile.store %y, %b[%i, %j] : !tile.fragment<16x8xf64>
    }
    tile.copy %b -> %Y[0, 0] : !tile.fragment<16x8xf64>, memref<16x8xf64>
  }
  return
}

// Warp 0 holds everything; the destination puts the lower 8 rows on warp 1.
func.func @across_warps(%X: memref<16x8xf32>, %Y: memref<16x8xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %b = tile.fragment layout(#tile.fragment<[[2:t32, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    tile.copy %X[0, 0] -> %a : memref<16x8xf32>, !tile.fragment<16x8xf32>
    tile.copy %a -> %b : !tile.fragment<16x8xf32>, !tile.fragment<16x8xf32>
    tile.parallel (%i, %j) in (16, 8) {
      %x = tile.load %b[%i, %j] : !tile.fragment<16x8xf32>
      %y = arith.addf %x, %x : f32
      tile.store %y, %b[%i, %j] : !tile.fragment<16x8xf32>
    }
    tile.copy %b -> %Y[0, 0] : !tile.fragment<16x8xf32>, memref<16x8xf32>
  }
  return
}

// The destination holds a second copy on warp 1. A loop over (copy, row,
// column) reads copy w on warp w and writes it to Y[w].
func.func @replicated(%X: memref<16x8xf32>, %Y: memref<2x16x8xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %b = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]], replicate [2:t32]>) : !tile.fragment<16x8xf32>
    tile.copy %X[0, 0] -> %a : memref<16x8xf32>, !tile.fragment<16x8xf32>
    tile.copy %a -> %b : !tile.fragment<16x8xf32>, !tile.fragment<16x8xf32>
    tile.parallel (%w, %i, %j) in (2, 16, 8) layout(#tile.fragment<[[2:t32], [2:s2, 8:t4], [4:t1, 2:s1]]>) {
      %x = tile.load %b[%i, %j] : !tile.fragment<16x8xf32>
      %y = arith.addf %x, %x : f32
      tile.store %y, %Y[%w, %i, %j] : memref<2x16x8xf32>
    }
  }
  return
}
