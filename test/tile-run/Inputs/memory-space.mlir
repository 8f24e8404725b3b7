// A memref outside the default memory space: no caller can pass one.
func.func @f(%a: memref<4xf32, 1>) {
  return
}
