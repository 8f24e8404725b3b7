// RUN: tile-opt %s --pass-pipeline='builtin.module(gpu.module(tile-extern-dynamic-shared))' | FileCheck %s

// The zero-length workgroup global of gpu.dynamic_shared_memory becomes the
// external dynamic block; static shared variables, zero-length globals of
// other address spaces and globals that are already external keep their
// linkage.
gpu.module @kernels {
  // CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
  llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64, dso_local} : !llvm.array<0 x i8>
  // CHECK: llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<6 x i64>
  llvm.mlir.global internal @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<6 x i64>
  // CHECK: llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
  llvm.mlir.global internal @global_empty() {addr_space = 1 : i32} : !llvm.array<0 x i8>
}
