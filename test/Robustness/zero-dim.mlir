// Found by gpu-lowering-mutants.test: a shared buffer with a zero-size dim
// used to verify and then assert in Layout::Layout once layout inference
// gave it a layout. The verifier refuses it now.
// RUN: not tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu 2>&1 | FileCheck %s
// CHECK: error: 'tile.alloc_shared' op expects every dim of the buffer to be positive, got 'memref<64x0xf16, #gpu.address_space<workgroup>>'

func.func @copy(%X: memref<15x15xf16>, %Y: memref<15x15xf16>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %tile = tile.alloc_shared : memref<64x0xf16, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %tile : memref<15x15xf16>, memref<64x0xf16, #gpu.address_space<workgroup>>
    tile.copy %tile -> %Y[0, 0] : memref<64x0xf16, #gpu.address_space<workgroup>>, memref<15x15xf16>
  }
  return
}
