// RUN: tile-opt %s --split-input-file --tile-merge-blocks | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_90a --tile-merge-blocks | FileCheck %s --check-prefix=SM90
// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_80 --tile-merge-blocks | FileCheck %s --check-prefix=SM80

// A 128 x 128 GEMM with a bias and ReLU epilogue: pairs of blocks along x
// merge into one of a 128 x 256 tile. The grid halves along x, the body
// sees 2 * bx, B's tile and the accumulator double along N, A's tile
// stays, and the epilogue's parallel runs over 256 columns, reading the
// bias at 2 * bx * 128 + j (what each block read at bx * 128 + j).
// CHECK-LABEL: func.func @bias_relu
// CHECK: tile.kernel grid(%[[BX:.*]], %{{.*}}) in (16, 32) threads(256) {
// CHECK:   %[[FIRST:.*]] = arith.muli %[[BX]], %c2{{.*}} : index
// CHECK:   %[[AS:.*]] = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK:   %[[BS:.*]] = tile.alloc_shared : memref<64x256xf16, #gpu.address_space<workgroup>>
// CHECK:   %[[ACC:.*]] = tile.fragment : !tile.fragment<128x256xf32>
// CHECK:   %[[N:.*]] = arith.muli %[[FIRST]], %c128
// CHECK:   tile.pipelined
// CHECK:     tile.copy %{{.*}} -> %[[AS]] : memref<4096x4096xf16>, memref<128x64xf16
// CHECK:     tile.copy %{{.*}}[%{{.*}}, %[[N]]] -> %[[BS]] : memref<4096x4096xf16>, memref<64x256xf16
// CHECK:     tile.gemm %[[AS]], %[[BS]], %[[ACC]] : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x256xf32>
// CHECK:   tile.parallel (%{{.*}}, %[[J:.*]]) in (128, 256) {
// CHECK:     %[[COL:.*]] = arith.addi %[[N]], %[[J]]
// CHECK:     tile.load %{{.*}}[%[[COL]]] : memref<4096xf16>
// CHECK:   tile.copy %[[ACC]] -> %{{.*}}[%{{.*}}, %[[N]]] : !tile.fragment<128x256xf32>, memref<4096x4096xf16>
// SM90-LABEL: func.func @bias_relu
// SM90: tile.kernel grid({{.*}}) in (16, 32)
// SM80-LABEL: func.func @bias_relu
// SM80: tile.kernel grid({{.*}}) in (32, 32)
// SM80: tile.fragment : !tile.fragment<128x128xf32>
func.func @bias_relu(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %Bias: memref<4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (32, 32) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.parallel (%i, %j) in (128, 128) {
      %col = arith.addi %n, %j : index
      %b = tile.load %Bias[%col] : memref<4096xf16>
      %bf = arith.extf %b : f16 to f32
      %v = tile.load %acc[%i, %j] : !tile.fragment<128x128xf32>
      %s = arith.addf %v, %bf : f32
      %r = arith.maximumf %s, %zero : f32
      tile.store %r, %acc[%i, %j] : !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf16>
  }
  return
}

// -----

// int8 weights stored N x K, dequantized in a parallel with a scale per
// output channel (B transposed): the weights' tiles and the parallel
// double along N (their first dim), the scale is read at the merged
// channel.
// CHECK-LABEL: func.func @dequant
// CHECK: tile.kernel grid({{.*}}) in (16, 32) threads(128)
// CHECK: tile.alloc_shared : memref<128x32xf16
// CHECK: %[[Q:.*]] = tile.alloc_shared : memref<256x32xi8
// CHECK: %[[W:.*]] = tile.alloc_shared : memref<256x32xf16
// CHECK: tile.fragment : !tile.fragment<128x256xf32>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (256, 32)
// CHECK: tile.gemm %{{.*}}, %[[W]], %{{.*}} transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<256x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x256xf32>
func.func @dequant(%A: memref<4096x4096xf16>, %B: memref<4096x4096xi8>, %Scale: memref<4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Bw = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    tile.pipelined %k = %c0 to %c128 step %c1 stages(2) {
      %m = arith.muli %by, %c128 : index
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      %n = arith.muli %bx, %c128 : index
      tile.copy %B[%n, %kk] -> %Bq : memref<4096x4096xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Bq[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %f = arith.sitofp %q : i8 to f16
        %n2 = arith.muli %bx, %c128 : index
        %row = arith.addi %n2, %i : index
        %s = tile.load %Scale[%row] : memref<4096xf16>
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Bw[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bw, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf16>
  }
  return
}

// -----

// 64 x 128 tiles: pairs of blocks merge along x (N to 256), then pairs of
// those along y (M to 128), A's tile widening along M in the second.
// CHECK-LABEL: func.func @rows64
// CHECK: tile.kernel grid(%[[BX:.*]], %[[BY:.*]]) in (16, 32) threads(128)
// CHECK-DAG: arith.muli %[[BY]], %c2
// CHECK-DAG: arith.muli %[[BX]], %c2
// CHECK: tile.alloc_shared : memref<128x64xf16
// CHECK: tile.alloc_shared : memref<64x256xf16
// CHECK: tile.fragment : !tile.fragment<128x256xf32>
// CHECK: tile.gemm {{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x256xf32>
// CHECK: tile.copy %{{.*}} -> %{{.*}} : !tile.fragment<128x256xf32>, memref<4096x4096xf16>
func.func @rows64(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (32, 64) threads(128) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<64x128xf32>
    tile.fill %acc, %zero : !tile.fragment<64x128xf32>
    %m = arith.muli %by, %c64 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<64x128xf32>, memref<4096x4096xf16>
  }
  return
}

// -----

// 64 wide along N, its block index the grid's y: four blocks merge along y.
// A split-K epilogue's atomic adds widen with the accumulator.
// CHECK-LABEL: func.func @narrow_split_k
// CHECK: tile.kernel grid(%{{.*}}, %[[BY:.*]], %{{.*}}) in (16, 16, 8) threads(128)
// CHECK: arith.muli %[[BY]], %c4
// CHECK: tile.fragment : !tile.fragment<128x256xf32>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (128, 256)
// CHECK:   memref.atomic_rmw addf
func.func @narrow_split_k(%A: memref<2048x8192xf16>, %B: memref<8192x4096xf16>, %C: memref<2048x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by, %bz) in (16, 64, 8) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x64xf32>
    tile.fill %acc, %zero : !tile.fragment<128x64xf32>
    %m = arith.muli %bx, %c128 : index
    %n = arith.muli %by, %c64 : index
    %k0 = arith.muli %bz, %c1024 : index
    tile.pipelined %k = %c0 to %c16 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      %ko = arith.addi %k0, %kk : index
      tile.copy %A[%m, %ko] -> %As : memref<2048x8192xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%ko, %n] -> %Bs : memref<8192x4096xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x64xf32>
    }
    tile.parallel (%i, %j) in (128, 64) {
      %r = arith.addi %m, %i : index
      %c = arith.addi %n, %j : index
      %v = tile.load %acc[%i, %j] : !tile.fragment<128x64xf32>
      %old = memref.atomic_rmw addf %v, %C[%r, %c] : (f32, memref<2048x4096xf32>) -> f32
    }
  }
  return
}

// -----

// Kept as written: too few blocks once merged (8 x 16 = 128 blocks, 64
// merged), an odd grid along N, a row reduction over the columns that
// would widen, a tile offset read from a table on the device, and a
// kernel that reads its thread index.
// CHECK-LABEL: func.func @kept
// CHECK: in (8, 16)
// CHECK: in (33, 32)
// CHECK: in (32, 32)
// CHECK: tile.reduce
// CHECK: in (32, 32)
// CHECK: in (32, 32)
// CHECK-NOT: x256
// CHECK-NOT: 256x
func.func @kept(%A: memref<4096x4096xf16>, %B: memref<4096x4224xf16>, %C: memref<4096x4224xf32>, %R: memref<4096xf32>, %Plan: memref<32xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (8, 16) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4224xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4224xf32>
  }
  tile.kernel grid(%bx, %by) in (33, 32) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4224xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4224xf32>
  }
  tile.kernel grid(%bx, %by) in (32, 32) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %rows = tile.fragment : !tile.fragment<128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4224xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.reduce max %acc -> %rows dim 1 : !tile.fragment<128x128xf32>, !tile.fragment<128xf32>
    tile.copy %rows -> %R[%m] : !tile.fragment<128xf32>, memref<4096xf32>
  }
  tile.kernel grid(%bx, %by) in (32, 32) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %t = memref.load %Plan[%bx] : memref<32xindex>
    %n = arith.muli %t, %c128 : index
    tile.pipelined %k = %c0 to %c64 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4224xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4224xf32>
  }
  tile.kernel grid(%bx, %by) in (32, 32) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    %tid = tile.thread_id thread : index
    tile.pipelined %k = %c0 to %c64 step %c1 stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4224xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4224xf32>
  }
  return
}
