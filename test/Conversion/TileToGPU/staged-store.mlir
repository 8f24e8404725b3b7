// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu=deepen-pipelines=false --canonicalize --cse | FileCheck %s

// A fragment whose threads hold runs of 2 elements (mma.sync's accumulator)
// stored to global memory as f16: through shared scratch when the block
// has the memory anyway (here the pipeline's stages, free after the loop):
// each thread writes its runs there (f16x2), then the block stores 16-byte
// rows, coalesced (vectors when the tensor is aligned, checked at run time).
// CHECK-LABEL: func.func @staged
// CHECK: dynamic_shared_memory_size %c98304_i32
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: vector.store {{.*}} : memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, vector<2xf16>
// CHECK: gpu.barrier
// CHECK: vector.load {{.*}} : memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: vector.store {{.*}} {alignment = 16 : i64} : memref<?x?xf16>, vector<8xf16>
func.func @staged(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf16>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (4) threads(128) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    tile.fill %acc, %zero : !tile.fragment<128x128xf32>
    tile.pipelined %kb = %c0 to %kt step %c1 stages(3) {
      %k0 = arith.muli %kb, %c64 : index
      tile.copy %A[0, %k0] -> %As : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, 0] -> %Bs : memref<?x?xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x128xf32>
    }
    tile.copy %acc -> %C[0, 0] : !tile.fragment<128x128xf32>, memref<?x?xf16>
  }
  return
}

// -----

// Without shared memory to reuse, staging would grow the block (and cost
// occupancy): the threads store their runs (here of 4) directly.
// CHECK-LABEL: func.func @direct
// CHECK: dynamic_shared_memory_size %c0_i32
// CHECK-NOT: memref<{{[0-9]+}}xf16, #gpu.address_space<workgroup>>
// CHECK: vector.store {{.*}} {alignment = 8 : i64} : memref<?x?xf16>, vector<4xf16>
func.func @direct(%X: memref<?x?xf16>, %Y: memref<?x?xf16>) {
  tile.kernel grid(%bx) in (4) threads(128) {
    %x = tile.fragment : !tile.fragment<64x64xf32>
    tile.copy %X[0, 0] -> %x : memref<?x?xf16>, !tile.fragment<64x64xf32>
    tile.copy %x -> %Y[0, 0] : !tile.fragment<64x64xf32>, memref<?x?xf16>
  }
  return
}
