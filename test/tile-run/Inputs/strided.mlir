// A strided memref parameter: the JIT passes strided views, tile-run only
// dense arrays.
func.func @f(%a: memref<4x4xf32, strided<[8, 1]>>) {
  return
}
