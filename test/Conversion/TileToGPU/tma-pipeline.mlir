// RUN: tile-opt %s --tile-attach-target="chip=sm_90a features=cp.async,ldmatrix,mma.sync,tma,wgmma" --tile-infer-layouts --convert-tile-to-gpu="warp-specialize=false tma-store=false" --canonicalize --cse | FileCheck %s

// (With warp-specialize=false: the TMA version that kernels
// not warp-specialized get, see warp-specialize.mlir.)
// On sm_90a a pipelined GEMM loop gets a TMA version. The host encodes one
// tensor map per producer copy only when every tensor's rows are 16-byte
// aligned (the driver refuses others); the launch then takes the TMA
// version, otherwise the cp.async one, and the maps are null.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[MAPS:.*]]:2 = scf.if %[[READY:.*]] -> (!llvm.ptr, !llvm.ptr) {
// CHECK:   nvgpu.tma.create.descriptor {{.*}} box[%c128, %c64] : memref<*xf16> -> <tensor = memref<128x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK:   nvgpu.tma.create.descriptor {{.*}} box[%c64, %c64] : memref<*xf16> -> <tensor = memref<64x64xf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
// CHECK:   scf.yield
// CHECK: } else {
// CHECK:   scf.yield %[[NULL]], %[[NULL]]
// CHECK: gpu.launch
// CHECK: scf.if %[[READY]] {
// CHECK:   nvgpu.mbarrier.create
// Coordinates innermost first. Stage s of the prologue holds k-block s: A's
// box at (column 64 s, row 0), B's two 64-column swizzle panels at (0, 64 s)
// and (64, 64 s), all on stage s's barrier; the loop loads k-block k + 2
// the same way.
// CHECK:   %[[MA:.*]] = builtin.unrealized_conversion_cast %[[MAPS]]#0
// CHECK:   nvgpu.tma.async.load %[[MA]][%c0, %c0], %[[BAR:[^ ]*]][%c0] to
// CHECK:   %[[MB:.*]] = builtin.unrealized_conversion_cast %[[MAPS]]#1
// CHECK:   nvgpu.tma.async.load %[[MB]][%c0, %c0], %[[BAR]][%c0] to
// CHECK:   nvgpu.tma.async.load %[[MB]][%c64, %c0], %[[BAR]][%c0] to
// CHECK:   nvgpu.tma.async.load %{{.*}}[%c64, %c0], %[[BAR]][%c1] to
// CHECK:   nvgpu.tma.async.load %{{.*}}[%c0, %c64], %[[BAR]][%c1] to
// CHECK:   nvgpu.tma.async.load %{{.*}}[%c64, %c64], %[[BAR]][%c1] to
// CHECK:   scf.for
// CHECK:     nvgpu.tma.async.load %{{.*}}[%[[KA:[^,]*]], %c0], %[[BAR]][%[[S:[^ ]*]]] to
// CHECK:     nvgpu.tma.async.load %{{.*}}[%c0, %[[KA]]], %[[BAR]][%[[S]]] to
// CHECK:     nvgpu.tma.async.load %{{.*}}[%c64, %[[KA]]], %[[BAR]][%[[S]]] to
// CHECK: nvgpu.device_async_copy
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>, %kt: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx, %by) in (4, 4) threads(128) {
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
    tile.copy %acc -> %C[0, 0] : !tile.fragment<128x128xf32>, memref<?x?xf32>
  }
  return
}
