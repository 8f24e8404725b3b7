// RUN: tile-opt %s --convert-tile-to-cpu=openmp=1 --split-input-file | FileCheck %s --implicit-check-not="tile."
// RUN: not tile-opt %s --convert-tile-to-cpu --split-input-file 2>&1 | FileCheck %s --check-prefix=NOOMP

// A kernel that reads thread indices: its blocks in order, each block's 64
// threads an OpenMP team; the index is the team's thread number (lanes and
// warps of 32), tile ops run in the team's first thread between barriers,
// tile.barrier is the team's barrier; the shared buffer is made before the
// loop over blocks, so the team shares it.
// CHECK-LABEL: func.func @team
// CHECK: %[[S:.+]] = memref.alloca(){{.*}} : memref<64xf32>
// CHECK: scf.for %{{.+}} = %{{.+}} to %c3 step
// CHECK: %[[N:.+]] = arith.constant 64 : i32
// CHECK: omp.parallel num_threads(%[[N]] : i32) {
// CHECK: %[[NUM:.+]] = func.call @omp_get_thread_num() : () -> i32
// CHECK: %[[T:.+]] = arith.index_cast %[[NUM]] : i32 to index
// CHECK: %[[LANE:.+]] = arith.remui %[[T]], %c32{{.*}} : index
// CHECK: %[[WARP:.+]] = arith.divui %[[T]], %c32{{.*}} : index
// CHECK: memref.store %{{.+}}, %[[S]][%[[T]]]
// CHECK-NEXT: omp.barrier
// CHECK: memref.load %[[S]][%[[LANE]]]
// CHECK: omp.barrier
// CHECK-NEXT: omp.masked {
// CHECK: scf.for
// CHECK: omp.terminator
// CHECK-NEXT: }
// CHECK-NEXT: omp.barrier
// CHECK: omp.terminator
// CHECK: func.func private @omp_get_thread_num() -> i32
// NOOMP: error: 'tile.kernel' op reads thread indices, whose threads the CPU target runs as an OpenMP team: this build found no OpenMP runtime
func.func @team(%Y: memref<3x64xf32>, %Z: memref<64xf32>) {
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (3) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    %lane = tile.thread_id lane : index
    %warp = tile.thread_id warp : index
    memref.store %one, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    tile.barrier
    %x = memref.load %s[%lane] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %Y[%bx, %warp] : memref<3x64xf32>
    tile.copy %s -> %Z[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
  }
  return
}

// -----

// Without thread indices a written barrier orders nothing on the host.
// CHECK-LABEL: func.func @uniform
// CHECK-NOT: omp.barrier
// CHECK: return
func.func @uniform(%Y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (4) threads(64) {
    memref.store %one, %Y[%bx] : memref<4xf32>
    tile.barrier
  }
  return
}
