// RUN: tile-opt %s --split-input-file --tile-widen-k-steps | FileCheck %s
// RUN: tile-opt %s --split-input-file --tile-widen-k-steps=bytes=0 | FileCheck %s --check-prefix=OFF
// RUN: not tile-opt %s --tile-widen-k-steps=bytes=-1 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: tile-widen-k-steps: bytes must be 0 or positive, got -1

// Two 32-wide f16 steps make one of 128 bytes: the buffers double along K,
// the loop runs half as many iterations, the copies start at the first of
// the two iterations' origins.
// CHECK-LABEL: func.func @plain
// CHECK: %[[AS:.*]] = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[BS:.*]] = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: tile.pipelined %[[K:.*]] = %[[ZERO]] to %[[FOUR]] step %[[ONE]] stages(3) {
// CHECK:   %[[FIRST:.*]] = arith.muli %[[K]], %c2{{.*}} : index
// CHECK:   %[[KK:.*]] = arith.muli %[[FIRST]], %c32
// CHECK:   tile.copy %{{.*}}[%{{.*}}, %[[KK]]] -> %[[AS]] : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK:   tile.copy %{{.*}}[%[[KK]], %{{.*}}] -> %[[BS]] : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
// CHECK:   tile.gemm %[[AS]], %[[BS]], %{{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>
// OFF-LABEL: func.func @plain
// OFF: tile.alloc_shared : memref<128x32xf16
// OFF: tile.pipelined %{{.*}} = %c0 to %c8 step %c1 stages(3)
func.func @plain(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Transposed operands: K is A's first dim and B's second.
// CHECK-LABEL: func.func @transposed
// CHECK: tile.alloc_shared : memref<64x128xf16
// CHECK: tile.alloc_shared : memref<128x64xf16
// CHECK: tile.gemm {{.*}} transpose_a transpose_b : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x64xf16, #gpu.address_space<workgroup>>
func.func @transposed(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%kk, %m] -> %As : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%nn, %kk] -> %Bs : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc transpose_a transpose_b : memref<32x128xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// A split-K loop: K's origin is the split's plus k steps, the loop starts
// at 2: the body's first iteration is 2 + 2 k.
// CHECK-LABEL: func.func @split_k
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} stages(3) {
// CHECK:   %[[TWICE:.*]] = arith.muli %[[K]], %c2{{.*}} : index
// CHECK:   %[[FIRST:.*]] = arith.addi %[[TWICE]], %c2{{.*}} : index
// CHECK:   arith.muli %[[FIRST]], %c32
// CHECK: tile.gemm {{.*}} : memref<128x64xf16
func.func @split_k(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c2 to %c10 step %c1 stages(3) {
      %base = arith.muli %bz, %c2048 : index
      %step = arith.muli %k, %c32 : index
      %kk = arith.addi %base, %step : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// A loop by 2 whose copies advance 16 elements per unit of k: a step is the
// tile's 32, merged as before (k runs 0, 2, 4, 6; merged 0 and 4).
// CHECK-LABEL: func.func @by_two
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %c2{{.*}} step
// CHECK:   arith.muli %[[K]], %c4{{.*}} : index
// CHECK: tile.gemm {{.*}} : memref<128x64xf16
func.func @by_two(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c2 stages(3) {
      %kk = arith.muli %k, %c16 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// 16-wide f16 steps (32 bytes): four make one.
// CHECK-LABEL: func.func @four
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %c2{{.*}} step
// CHECK: tile.gemm {{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16
func.func @four(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c16 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x16xf16, #gpu.address_space<workgroup>>, memref<16x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Six 16-wide steps: four does not divide them, two does.
// CHECK-LABEL: func.func @six
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %c3{{.*}} step
// CHECK: tile.gemm {{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16
func.func @six(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x16xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<16x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c6 step %c1 stages(3) {
      %kk = arith.muli %k, %c16 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x16xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x16xf16, #gpu.address_space<workgroup>>, memref<16x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: 64-wide f16 steps are 128 bytes already.
// CHECK-LABEL: func.func @wide
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16,
func.func @wide(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      %kk2 = arith.muli %kk, %c2 : index
      tile.copy %A[%m, %kk2] -> %As : memref<4096x4096xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk2, %nn] -> %Bs : memref<4096x4096xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: three iterations do not pair.
// CHECK-LABEL: func.func @odd
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @odd(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c3 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: a trip count known at run time only.
// CHECK-LABEL: func.func @dynamic
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @dynamic(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %n step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: origins 16 apart for 32-wide tiles: the iterations' tiles overlap.
// CHECK-LABEL: func.func @overlap
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @overlap(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c16 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: A's rows move with k.
// CHECK-LABEL: func.func @moving_rows
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @moving_rows(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      %mk = arith.addi %m, %k : index
      tile.copy %A[%mk, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: a loop run as written (one stage).
// CHECK-LABEL: func.func @one_stage
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @one_stage(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(1) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: a gemm that clears its accumulator.
// CHECK-LABEL: func.func @clear
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @clear(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc clear_accum : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: other work in the loop (a tile.parallel on A's tile).
// CHECK-LABEL: func.func @parallel
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @parallel(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %v = tile.load %As[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
        %w = arith.addf %v, %v : f16
        tile.store %w, %As[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: A's buffer read after the loop.
// CHECK-LABEL: func.func @used_after
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
func.func @used_after(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    %frag = tile.fragment : !tile.fragment<128x32xf16>
    tile.copy %As -> %frag : memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x32xf16>
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: an sm_80 target (no wgmma).
// CHECK-LABEL: func.func @sm80
// CHECK: tile.pipelined %{{.*}} = %c0 to %{{.*}} step %c1 stages
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}}{{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16,
module attributes {tile.target = #tile.target<"sm_80">} {
func.func @sm80(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>, %C: memref<4096x4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %c2048 = arith.constant 2048 : index
  tile.kernel grid(%bx, %by, %bz) in (32, 32, 2) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %nn = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %nn] -> %Bs : memref<4096x4096xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %nn] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}
}

// -----

// On sm_90a (227 KiB of shared memory), 256 x 32 tiles at 4 stages would
// take 256 KiB merged: the loop keeps 3 stages (192 KiB).
// CHECK-LABEL: func.func @sm90_fewer_stages
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %c4{{.*}} step %{{.*}} stages(3)
// CHECK: tile.gemm {{.*}} : memref<256x64xf16, #gpu.address_space<workgroup>>, memref<64x256xf16
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @sm90_fewer_stages(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  tile.kernel grid(%bx, %by) in (16, 16) threads(256) {
    %As = tile.alloc_shared : memref<256x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x256xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<256x256xf32>
    %m = arith.muli %by, %c256 : index
    %n = arith.muli %bx, %c256 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(4) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<256x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<32x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<256x32xf16, #gpu.address_space<workgroup>>, memref<32x256xf16, #gpu.address_space<workgroup>>, !tile.fragment<256x256xf32>
    }
  }
  return
}
}

// -----

// Kept: with another 96 KiB buffer in the block, even 2 merged stages
// (128 KiB) would not fit beside it.
// CHECK-LABEL: func.func @sm90_no_room
// CHECK: tile.pipelined %{{.*}} = %c0 to %c8 step %c1 stages(2)
// CHECK: tile.gemm {{.*}} : memref<256x32xf16, #gpu.address_space<workgroup>>, memref<32x256xf16
module attributes {tile.target = #tile.target<"sm_90a">} {
func.func @sm90_no_room(%A: memref<4096x4096xf16>, %B: memref<4096x4096xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  tile.kernel grid(%bx, %by) in (16, 16) threads(256) {
    %big = tile.alloc_shared : memref<192x256xf16, #gpu.address_space<workgroup>>
    %As = tile.alloc_shared : memref<256x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x256xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<256x256xf32>
    %m = arith.muli %by, %c256 : index
    %n = arith.muli %bx, %c256 : index
    tile.copy %A[%m, %n] -> %big : memref<4096x4096xf16>, memref<192x256xf16, #gpu.address_space<workgroup>>
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<256x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %n] -> %Bs : memref<4096x4096xf16>, memref<32x256xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<256x32xf16, #gpu.address_space<workgroup>>, memref<32x256xf16, #gpu.address_space<workgroup>>, !tile.fragment<256x256xf32>
    }
  }
  return
}
}

// -----

// A loop that dequantizes int8 weights in a tile.parallel between its copies
// and the gemm (W8A16): the int8 tile, the f16 tile the parallel writes and
// the parallel's K dim widen together.
// CHECK-LABEL: func.func @dequant
// CHECK: %[[A:.*]] = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: %[[Q:.*]] = tile.alloc_shared : memref<128x64xi8, #gpu.address_space<workgroup>>
// CHECK: %[[W:.*]] = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
// CHECK: tile.pipelined %{{.*}} = %{{.*}} to %c4{{.*}} step
// CHECK: tile.copy %{{.*}} -> %[[Q]] : memref<4096x4096xi8>, memref<128x64xi8
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (128, 64)
// CHECK: tile.gemm %[[A]], %[[W]], %{{.*}} transpose_b : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16
func.func @dequant(%A: memref<4096x4096xf16>, %B: memref<4096x4096xi8>, %S: memref<4096xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Qs : memref<4096x4096xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Qs[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %row = arith.addi %n, %i : index
        %s = tile.load %S[%row] : memref<4096xf16>
        %f = arith.sitofp %q : i8 to f16
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Ws[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// A scale per group of 128 along K read at (k * 32 + j) / 128: the merged
// body's (2 k * 32 + j) / 128 for j < 64 reads what the two iterations did.
// Packed weights, two per byte, read at j / 2: their 16-byte tile widens to
// 32 with j. A scale read at k / 4 alone (one per 4 iterations) is kept: the
// merged iterations would not see it change.
// CHECK-LABEL: func.func @grouped_scale
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (128, 64)
// CHECK: tile.gemm {{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16
// CHECK-LABEL: func.func @packed
// CHECK: tile.alloc_shared : memref<128x32xi8
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (128, 64)
// CHECK: tile.gemm {{.*}} : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<128x64xf16
// CHECK-LABEL: func.func @by_k_alone
// CHECK: tile.gemm {{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16
func.func @grouped_scale(%A: memref<4096x4096xf16>, %B: memref<4096x4096xi8>, %S: memref<4096x32xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Qs : memref<4096x4096xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Qs[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %row = arith.addi %n, %i : index
        %col = arith.addi %kk, %j : index
        %g = arith.divui %col, %c128 : index
        %s = tile.load %S[%row, %g] : memref<4096x32xf16>
        %f = arith.sitofp %q : i8 to f16
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Ws[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}
func.func @packed(%A: memref<4096x4096xf16>, %B: memref<4096x2048xi8>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<128x16xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      %kb = arith.muli %k, %c16 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kb] -> %Qs : memref<4096x2048xi8>, memref<128x16xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %h = arith.divui %j, %c2 : index
        %q = tile.load %Qs[%i, %h] : memref<128x16xi8, #gpu.address_space<workgroup>>
        %f = arith.sitofp %q : i8 to f16
        tile.store %f, %Ws[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

func.func @by_k_alone(%A: memref<4096x4096xf16>, %B: memref<4096x4096xi8>, %S: memref<4096x32xf16>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      %g = arith.divui %k, %c4 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Qs : memref<4096x4096xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Qs[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %row = arith.addi %n, %i : index
        %s = tile.load %S[%row, %g] : memref<4096x32xf16>
        %f = arith.sitofp %q : i8 to f16
        %w = arith.mulf %f, %s : f16
        tile.store %w, %Ws[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}

// -----

// Kept: the parallel reads the accumulator, which the merged loop would
// have multiplied once less by then.
// CHECK-LABEL: func.func @reads_accumulator
// CHECK: tile.gemm {{.*}} : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16
func.func @reads_accumulator(%A: memref<4096x4096xf16>, %B: memref<4096x4096xi8>, %C: memref<4096x4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel grid(%bx, %by) in (32, 32) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Qs = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Ws = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c8 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<4096x4096xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Qs : memref<4096x4096xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Qs[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %a = tile.load %acc[%i, %c0] : !tile.fragment<128x128xf32>
        %f = arith.sitofp %q : i8 to f16
        %t = arith.truncf %a : f32 to f16
        %w = arith.mulf %f, %t : f16
        tile.store %w, %Ws[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Ws, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<4096x4096xf32>
  }
  return
}
