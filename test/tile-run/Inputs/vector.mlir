// A vector parameter: no caller can pass one.
func.func @f(%a: vector<4xf32>) {
  return
}
