// Transposed operands, clear_accum and accumulation into a non-zero C.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "a.T.astype(np.float64) @ b.T + 7" a=randn:float32:32x16 b=randn:float32:24x32
// RUN: tile-run %s -e accumulate --target=cpu --no-cache --arg @%t/a.npy --arg @%t/b.npy --arg f32:16x24=zeros --check 2=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %python %S/../reference.py eval %t "a.T.astype(np.float64) @ b.T" a=randn:float32:32x16 b=randn:float32:24x32
// RUN: tile-run %s -e clear --target=cpu --no-cache --arg @%t/a.npy --arg @%t/b.npy --arg f32:16x24=zeros --check 2=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// CHECK: check arg #2 against {{.*}}ref.npy: ok

func.func @accumulate(%A: memref<32x16xf32>, %B: memref<24x32xf32>, %C: memref<16x24xf32>) {
  %seven = arith.constant 7.0 : f32
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.alloc_shared : memref<32x16xf32, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<24x32xf32, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x24xf32>
    tile.copy %A[0, 0] -> %a : memref<32x16xf32>, memref<32x16xf32, #gpu.address_space<workgroup>>
    tile.copy %B[0, 0] -> %b : memref<24x32xf32>, memref<24x32xf32, #gpu.address_space<workgroup>>
    tile.fill %c, %seven : !tile.fragment<16x24xf32>
    tile.gemm %a, %b, %c transpose_a transpose_b : memref<32x16xf32, #gpu.address_space<workgroup>>, memref<24x32xf32, #gpu.address_space<workgroup>>, !tile.fragment<16x24xf32>
    tile.copy %c -> %C[0, 0] : !tile.fragment<16x24xf32>, memref<16x24xf32>
  }
  return
}

func.func @clear(%A: memref<32x16xf32>, %B: memref<24x32xf32>, %C: memref<16x24xf32>) {
  %seven = arith.constant 7.0 : f32
  tile.kernel grid(%bx) in (1) threads(32) {
    %a = tile.fragment : !tile.fragment<32x16xf32>
    %b = tile.alloc_shared : memref<24x32xf32, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x24xf32>
    tile.copy %A[0, 0] -> %a : memref<32x16xf32>, !tile.fragment<32x16xf32>
    tile.copy %B[0, 0] -> %b : memref<24x32xf32>, memref<24x32xf32, #gpu.address_space<workgroup>>
    tile.fill %c, %seven : !tile.fragment<16x24xf32>
    tile.gemm %a, %b, %c transpose_a transpose_b clear_accum : !tile.fragment<32x16xf32>, memref<24x32xf32, #gpu.address_space<workgroup>>, !tile.fragment<16x24xf32>
    tile.copy %c -> %C[0, 0] : !tile.fragment<16x24xf32>, memref<16x24xf32>
  }
  return
}
