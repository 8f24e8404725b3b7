// A kernel whose math needs ROCm's device library on the AMD path.
func.func @sine(%X: memref<64xf32>, %Y: memref<64xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %f = tile.fragment : !tile.fragment<64xf32>
    tile.copy %X[0] -> %f : memref<64xf32>, !tile.fragment<64xf32>
    tile.parallel (%i) in (64) {
      %x = tile.load %f[%i] : !tile.fragment<64xf32>
      %s = math.sin %x : f32
      tile.store %s, %f[%i] : !tile.fragment<64xf32>
    }
    tile.copy %f -> %Y[0] : !tile.fragment<64xf32>, memref<64xf32>
  }
  return
}
