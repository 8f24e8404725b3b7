// Known crash, found by cpu-lowering-mutants.test: a kernel whose grid size
// is memref.dim with a negative constant index (undefined by memref.dim's
// semantics, but it verifies) makes the canonicalizer after
// convert-tile-to-cpu and after convert-tile-to-gpu segfault, inside
// upstream pattern code in libMLIR. Upstream mlir-opt --canonicalize on the
// printed output of convert-tile-to-cpu does not crash. mutate.py makes no
// negative memref.dim indices until this is fixed; then drop the XFAIL (the
// runs must end in success or a diagnostic) and the exclusion in
// mutate.py's int_constant.
// XFAIL: *
// RUN: tile-opt %s --tile-to-cpu > /dev/null 2>&1 || test $? -eq 1
// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu --canonicalize > /dev/null 2>&1 || test $? -eq 1

func.func @f(%X: memref<?x?xf32>) {
  %c0 = arith.constant -1 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  tile.kernel grid(%bx) in (%m) threads(64) {
    %x = tile.fragment : !tile.fragment<8x32xf32>
    tile.copy %X[0, 0] -> %x : memref<?x?xf32>, !tile.fragment<8x32xf32>
  }
  return
}
