// RUN: tile-opt %s --tile-attach-target=chip=sm_90a --tile-infer-layouts --convert-tile-to-gpu --split-input-file | FileCheck %s
// RUN: tile-opt %s --tile-attach-target=chip=sm_90a --tile-infer-layouts --convert-tile-to-gpu=deepen-pipelines=false --split-input-file | FileCheck %s --check-prefix=WRITTEN

// A pipeline written with 2 stages of 32 KB gets 4 (the block holds a
// multiprocessor's registers either way): 4 x 32 KB of stages, plus the
// mbarriers' 16 bytes a stage and the 1 KB that aligns the block after
// them. As written: 2 x 32 KB.
// CHECK-LABEL: func.func @gemm
// CHECK: dynamic_shared_memory_size %c132096_i32
// WRITTEN-LABEL: func.func @gemm
// WRITTEN: dynamic_shared_memory_size %c66560_i32
func.func @gemm(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %a = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %row = arith.muli %bx, %c128 : index
    %col = arith.muli %by, %c128 : index
    tile.pipelined %k = %c0 to %c4 step %c1 stages(2) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%row, %kk] -> %a : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %col] -> %b : memref<256x256xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%row, %col] : !tile.fragment<128x128xf32>, memref<256x256xf32>
  }
  return
}

// -----

// 64 KB stages: 3 fit in the 227 KB a block may have, 4 do not.
// CHECK-LABEL: func.func @gemm_k128
// CHECK: dynamic_shared_memory_size %c197632_i32
// WRITTEN-LABEL: func.func @gemm_k128
// WRITTEN: dynamic_shared_memory_size %c132096_i32
func.func @gemm_k128(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 2 : index
  %c64 = arith.constant 128 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %a = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<128x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %row = arith.muli %bx, %c128 : index
    %col = arith.muli %by, %c128 : index
    tile.pipelined %k = %c0 to %c4 step %c1 stages(2) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%row, %kk] -> %a : memref<256x256xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %col] -> %b : memref<256x256xf16>, memref<128x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %acc : memref<128x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%row, %col] : !tile.fragment<128x128xf32>, memref<256x256xf32>
  }
  return
}

// -----

// A loop of two gemms (as attention's) keeps its stages.
// CHECK-LABEL: func.func @two_gemms
// CHECK: dynamic_shared_memory_size %c66560_i32
// WRITTEN-LABEL: func.func @two_gemms
// WRITTEN: dynamic_shared_memory_size %c66560_i32
func.func @two_gemms(%A: memref<256x256xf16>, %B: memref<256x256xf16>, %C: memref<256x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (2, 2) threads(128) {
    %a = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    %acc2 = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc2, %zero : !tile.fragment<128x128xf32>
    %row = arith.muli %bx, %c128 : index
    %col = arith.muli %by, %c128 : index
    tile.pipelined %k = %c0 to %c4 step %c1 stages(2) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %A[%row, %kk] -> %a : memref<256x256xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%kk, %col] -> %b : memref<256x256xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %a, %b, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
      tile.gemm %a, %b, %acc2 : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[%row, %col] : !tile.fragment<128x128xf32>, memref<256x256xf32>
    tile.copy %acc2 -> %C[%col, %row] : !tile.fragment<128x128xf32>, memref<256x256xf32>
  }
  return
}

