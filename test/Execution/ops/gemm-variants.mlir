// Transposed operands, clear_accum and accumulation into a non-zero C.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/../reference.py eval %t "a.T.astype(np.float64) @ b.T + 7" a=randn:float32:32x16 b=randn:float32:24x32
// RUN: tile-run %s -e accumulate --target=cpu --no-cache --arg @%t/a.npy --arg @%t/b.npy --arg f32:16x24=zeros --check 2=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// RUN: %python %S/../reference.py eval %t "a.T.astype(np.float64) @ b.T" a=randn:float32:32x16 b=randn:float32:24x32
// RUN: tile-run %s -e clear --target=cpu --no-cache --arg @%t/a.npy --arg @%t/b.npy --arg f32:16x24=zeros --check 2=%t/ref.npy --rtol 1e-5 --atol 1e-5 | FileCheck %s
// Ragged: M, N, K not multiples of the 32 x 32 x 16 tile (and 1 x 1 x 1);
// the exact 64 x 64 x 32 case alone would pass with a dropped edge tile.
// DEFINE: %{tab} = %python %S/../reference.py eval %t "a.T.astype(np.float64) @ b.T"
// DEFINE: %{ta} = %python %S/../reference.py eval %t "a.T.astype(np.float64) @ b"
// DEFINE: %{run} = tile-run %s --target=cpu --cache-dir=%t/cache --arg @%t/a.npy --arg @%t/b.npy --check 2=%t/ref.npy --rtol 1e-5 --atol 1e-5
// RUN: %{tab} a=randn:float16:32x64 b=randn:float16:64x32
// RUN: %{run} -e ragged_tab --arg f32:64x64=zeros | FileCheck %s
// RUN: %{tab} a=randn:float16:23x37 b=randn:float16:45x23
// RUN: %{run} -e ragged_tab --arg f32:37x45=zeros | FileCheck %s
// RUN: %{tab} a=randn:float16:50x100 b=randn:float16:33x50
// RUN: %{run} -e ragged_tab --arg f32:100x33=zeros | FileCheck %s
// RUN: %{tab} a=randn:float16:1x1 b=randn:float16:1x1
// RUN: %{run} -e ragged_tab --arg f32:1x1=zeros | FileCheck %s
// RUN: %{ta} a=randn:float16:32x64 b=randn:float16:32x64
// RUN: %{run} -e ragged_ta --arg f32:64x64=zeros | FileCheck %s
// RUN: %{ta} a=randn:float16:23x37 b=randn:float16:23x45
// RUN: %{run} -e ragged_ta --arg f32:37x45=zeros | FileCheck %s
// RUN: %{ta} a=randn:float16:50x100 b=randn:float16:50x33
// RUN: %{run} -e ragged_ta --arg f32:100x33=zeros | FileCheck %s
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

// Transposed operands over a grid of 32 x 32 tiles with K in steps of 16:
// A is K x M (transpose_a), B is N x K (transpose_b). @ragged_tab keeps both
// in shared memory, @ragged_ta reads A^T from a fragment. Partial tiles on
// all three dims are padded with zeros on the way in and dropped on the way out.
func.func @ragged_tab(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %k = memref.dim %A, %c0 : memref<?x?xf16>
  %m = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c0 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c32 : index
  %gn = arith.ceildivui %n, %c32 : index
  %nk = arith.ceildivui %k, %c16 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %a = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x16xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<32x32xf32>
    tile.fill %c, %zero : !tile.fragment<32x32xf32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c32 : index
    scf.for %kb = %c0 to %nk step %c1 {
      %k0 = arith.muli %kb, %c16 : index
      tile.copy %A[%k0, %m0] -> %a : memref<?x?xf16>, memref<16x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n0, %k0] -> %b : memref<?x?xf16>, memref<32x16xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %c transpose_a transpose_b : memref<16x32xf16, #gpu.address_space<workgroup>>, memref<32x16xf16, #gpu.address_space<workgroup>>, !tile.fragment<32x32xf32>
    }
    tile.copy %c -> %C[%m0, %n0] : !tile.fragment<32x32xf32>, memref<?x?xf32>
  }
  return
}

func.func @ragged_ta(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %k = memref.dim %A, %c0 : memref<?x?xf16>
  %m = memref.dim %A, %c1 : memref<?x?xf16>
  %n = memref.dim %B, %c1 : memref<?x?xf16>
  %gm = arith.ceildivui %m, %c32 : index
  %gn = arith.ceildivui %n, %c32 : index
  %nk = arith.ceildivui %k, %c16 : index
  tile.kernel grid(%bx, %by) in (%gm, %gn) threads(128) {
    %a = tile.fragment : !tile.fragment<16x32xf16>
    %b = tile.alloc_shared : memref<16x32xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<32x32xf32>
    tile.fill %c, %zero : !tile.fragment<32x32xf32>
    %m0 = arith.muli %bx, %c32 : index
    %n0 = arith.muli %by, %c32 : index
    scf.for %kb = %c0 to %nk step %c1 {
      %k0 = arith.muli %kb, %c16 : index
      tile.copy %A[%k0, %m0] -> %a : memref<?x?xf16>, !tile.fragment<16x32xf16>
      tile.copy %B[%k0, %n0] -> %b : memref<?x?xf16>, memref<16x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %c transpose_a : !tile.fragment<16x32xf16>, memref<16x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<32x32xf32>
    }
    tile.copy %c -> %C[%m0, %n0] : !tile.fragment<32x32xf32>, memref<?x?xf32>
  }
  return
}
