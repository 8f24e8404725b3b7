// RUN: tile-opt %s --split-input-file --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="warp-specialize=false deepen-pipelines=false" --canonicalize --cse | FileCheck %s

// W8A16 as users write it: each iteration dequantizes the int8 tile into
// %Bd, which the gemm reads. The TMA version leaves the gemm in flight
// (wait_group 1 per iteration), so %Bd is rotated: two copies (8192
// elements), iteration j writing copy j mod 2 at the stage the loop reads
// (the carried %arg17), while the gemm of iteration j - 1 still reads the
// other one. Before, the next iteration overwrote the one buffer the gemm
// in flight read.
// CHECK-LABEL: func.func @dequant
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%[[STAGE:[^ ]*]] = %c0,
// CHECK-NEXT: %[[OFFSET:.*]] = arith.muli %[[STAGE]], %c4096 : index
// CHECK: %[[SWIZZLED:.*]] = arith.xori
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[SWIZZLED]], %[[OFFSET]] : index
// CHECK-NEXT: vector.store %{{.*}}, %{{.*}}[%[[AT]]] {{.*}} : memref<8192xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: wgmma.mma_async.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
func.func @dequant(%A: memref<512x512xf16>, %B: memref<512x512xi8>, %S: memref<512xf16>, %C: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (4, 4) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<512x512xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Bq : memref<512x512xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (128, 32) {
        %q = tile.load %Bq[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %x = arith.sitofp %q : i8 to f16
        %row = arith.addi %n, %i : index
        %s = tile.load %S[%row] : memref<512xf16>
        %y = arith.mulf %x, %s : f16
        tile.store %y, %Bd[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bd, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<512x512xf32>
  }
  return
}

// -----

// The body fills only half of %Bd each iteration (the rest is what an
// earlier iteration left): not rotated, and the gemm is waited for where
// it is issued.
// CHECK-LABEL: func.func @partial
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK: return
func.func @partial(%A: memref<512x512xf16>, %B: memref<512x512xi8>, %S: memref<512xf16>, %C: memref<512x512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (4, 4) threads(128) {
    %As = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %Bq = tile.alloc_shared : memref<128x32xi8, #gpu.address_space<workgroup>>
    %Bd = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c128 : index
    tile.pipelined %k = %c0 to %c16 step %c1 stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%m, %kk] -> %As : memref<512x512xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%n, %kk] -> %Bq : memref<512x512xi8>, memref<128x32xi8, #gpu.address_space<workgroup>>
      tile.parallel (%i, %j) in (64, 32) {
        %q = tile.load %Bq[%i, %j] : memref<128x32xi8, #gpu.address_space<workgroup>>
        %x = arith.sitofp %q : i8 to f16
        %row = arith.addi %n, %i : index
        %s = tile.load %S[%row] : memref<512xf16>
        %y = arith.mulf %x, %s : f16
        tile.store %y, %Bd[%i, %j] : memref<128x32xf16, #gpu.address_space<workgroup>>
      }
      tile.gemm %As, %Bd, %acc transpose_b : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%m, %n] : !tile.fragment<128x128xf32>, memref<512x512xf32>
  }
  return
}
