// A kernel that needs 128 KiB of LDS, for the LDS limits of
// test/ROCDL/invalid.test (which makes a 192 KiB one of it with sed).
func.func @lds(%G: memref<256x256xf16>) {
  tile.kernel grid(%bx) in (1) threads(256) {
    %sh = tile.alloc_shared : memref<256x256xf16, #gpu.address_space<workgroup>>
    tile.copy %G[0, 0] -> %sh : memref<256x256xf16>, memref<256x256xf16, #gpu.address_space<workgroup>>
    tile.copy %sh -> %G[0, 0] : memref<256x256xf16, #gpu.address_space<workgroup>>, memref<256x256xf16>
  }
  return
}
