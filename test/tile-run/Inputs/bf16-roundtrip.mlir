// bf16 in, f32 out: tile-run converts f32 .npy files for bf16 parameters.
func.func @f(%A: memref<4xbf16>, %B: memref<4xf32>) {
  tile.kernel grid(%bx) in (1) threads(32) {
    %f = tile.fragment : !tile.fragment<4xbf16>
    tile.copy %A[0] -> %f : memref<4xbf16>, !tile.fragment<4xbf16>
    tile.copy %f -> %B[0] : !tile.fragment<4xbf16>, memref<4xf32>
  }
  return
}
