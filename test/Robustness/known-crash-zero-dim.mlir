// Known crash, found by gpu-lowering-mutants.test: a shared buffer with a
// zero-size dim passes the verifier, but once tile-infer-layouts gives it a
// layout (#tile.linear here, #tile.swizzle for gemm operands), verifying it
// asserts in Layout::Layout ("malformed layout factor", lib/Layout/Layout.cpp)
// instead of emitting a diagnostic. mutate.py makes no zero-size dims until
// this is fixed; then drop the XFAIL (the run must end in success or a
// diagnostic) and add "0" back to mutate.py's DIMS.
// XFAIL: *
// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu > /dev/null 2>&1 || test $? -eq 1

func.func @copy(%X: memref<15x15xf16>, %Y: memref<15x15xf16>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %tile = tile.alloc_shared : memref<64x0xf16, #gpu.address_space<workgroup>>
    tile.copy %X[0, 0] -> %tile : memref<15x15xf16>, memref<64x0xf16, #gpu.address_space<workgroup>>
    tile.copy %tile -> %Y[0, 0] : memref<64x0xf16, #gpu.address_space<workgroup>>, memref<15x15xf16>
  }
  return
}
