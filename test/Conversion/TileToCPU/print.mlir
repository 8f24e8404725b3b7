// RUN: tile-opt %s --convert-tile-to-cpu --split-input-file --verify-diagnostics | FileCheck %s --implicit-check-not="tile."

// A print calls the C library's printf with a private global format (the
// line of PrintLines), then fflush(NULL). A scalar is printed once per
// thread of the block (a loop of 4), with the block's place in the grid: its
// ids before rasterization (the remainder and quotient of the loop's block
// index, not the raster's ids computed for the body), padded to three.
// CHECK: llvm.mlir.global private constant @tile_print_format_0("msg='x' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=float value=%f\0A\00")
// CHECK-DAG: llvm.func @fflush(!llvm.ptr) -> i32
// CHECK-DAG: llvm.func @printf(!llvm.ptr, ...) -> i32
// CHECK-LABEL: func.func @scalar
// CHECK: scf.for %[[BLOCK:.+]] = %c0 to %{{.+}} step %c1 {
// CHECK: arith.minui
// CHECK: %[[X:.+]] = arith.remui %[[BLOCK]], %c2 : index
// CHECK-NEXT: %[[Y:.+]] = arith.divui %[[BLOCK]], %c2 : index
// CHECK: scf.for %[[T:.+]] = %{{.+}} to %c4 step %{{.+}} {
// CHECK-NEXT: %[[X32:.+]] = arith.index_cast %[[X]] : index to i32
// CHECK-NEXT: %[[Y32:.+]] = arith.index_cast %[[Y]] : index to i32
// CHECK-NEXT: %[[Z32:.+]] = arith.index_cast %{{.+}} : index to i32
// CHECK-NEXT: %[[T32:.+]] = arith.index_cast %[[T]] : index to i32
// CHECK-NEXT: %[[V:.+]] = arith.extf %{{.+}} : f32 to f64
// CHECK-NEXT: %[[FORMAT:.+]] = llvm.mlir.addressof @tile_print_format_0 : !llvm.ptr
// CHECK-NEXT: llvm.call @printf(%[[FORMAT]], %[[X32]], %[[Y32]], %[[Z32]], %[[T32]], %[[V]]) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, i32, i32, i32, i32, f64) -> i32
// CHECK-NEXT: }
// CHECK-NEXT: %[[NULL:.+]] = llvm.mlir.zero : !llvm.ptr
// CHECK-NEXT: llvm.call @fflush(%[[NULL]]) : (!llvm.ptr) -> i32
func.func @scalar(%x: f32) {
  tile.kernel grid(%bx, %by) in (2, 3) threads(4) raster(#tile.raster<2>) {
    tile.print "x" %x : f32
  }
  return
}

// -----

// expected-error @+1 {{redefinition of function 'printf' of different type '!llvm.func<i32 (ptr, ...)>' is prohibited}}
llvm.func @printf(!llvm.ptr) -> i32

func.func @declared(%x: f32) {
  tile.kernel grid(%bx) in (1) threads(4) {
    // expected-error @+2 {{'tile.print' op prints through the C library's printf and fflush, which the module declares with other types}}
    // expected-error @+1 {{failed to legalize operation 'tile.print' that was explicitly marked illegal}}
    tile.print "x" %x : f32
  }
  return
}
