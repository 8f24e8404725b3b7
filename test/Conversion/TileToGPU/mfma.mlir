// Layouts inferred for an AMD chip (MFMA) do not lower to NVVM.
// RUN: tile-opt %s --tile-attach-target=chip=gfx942 --tile-infer-layouts --convert-tile-to-gpu --verify-diagnostics

func.func @mfma(%A: memref<16x16xf16>, %B: memref<16x16xf16>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %c = tile.fragment : !tile.fragment<16x16xf32>
    // expected-error @+1 {{MFMA gemms lower on the ROCDL path, not to NVVM}}
    tile.gemm %a, %b, %c : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
  }
  return
}
