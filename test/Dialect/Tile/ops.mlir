// RUN: tile-opt %s | tile-opt | FileCheck %s
// RUN: tile-opt %s --mlir-print-op-generic | tile-opt | FileCheck %s

// CHECK-LABEL: func.func @kernel_grids
func.func @kernel_grids(%n: index) {
  // CHECK: tile.kernel grid(%[[BX:.+]]) in (4) threads(32) {
  tile.kernel grid(%bx) in (4) threads(32) {
  }
  // CHECK: tile.kernel grid(%{{.+}}, %{{.+}}) in (8, %{{.+}}) threads(256) raster(#tile.raster<4>) {
  tile.kernel grid(%bx, %by) in (8, %n) threads(256) raster(#tile.raster<4>) {
  }
  // CHECK: tile.kernel grid(%{{.+}}, %{{.+}}) in (%{{.+}}, 2) threads(128) raster(#tile.raster<2, column>) {
  tile.kernel grid(%bx, %by) in (%n, 2) threads(128) raster(#tile.raster<2, column>) {
  }
  // CHECK: tile.kernel grid(%{{.+}}, %{{.+}}) in (%{{.+}}, 2) threads(128) raster(#tile.raster<2>) persistent {
  tile.kernel grid(%bx, %by) in (%n, 2) threads(128) raster(#tile.raster<2>) persistent {
  }
  // CHECK: tile.kernel grid(%{{.+}}) in (%{{.+}}) threads(32) persistent specialize {
  tile.kernel grid(%bx) in (%n) threads(32) persistent specialize {
  }
  // CHECK: tile.kernel grid(%{{.+}}, %{{.+}}, %{{.+}}) in (2, 3, 4) threads(64) attributes {note = "x"} {
  tile.kernel grid(%bx, %by, %bz) in (2, 3, 4) threads(64) attributes {note = "x"} {
  }
  return
}

// CHECK-LABEL: func.func @allocations
func.func @allocations() {
  tile.kernel grid(%bx) in (1) threads(128) {
    // CHECK: tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %a = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc_shared layout(#tile.linear) : memref<64x32xf16
    %b = tile.alloc_shared layout(#tile.linear) : memref<64x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc_shared layout(#tile.padded<8>) : memref<64x32xf16
    %c = tile.alloc_shared layout(#tile.padded<8>) : memref<64x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc_shared layout(#tile.swizzle<32>) : memref<32x16xf16
    %d = tile.alloc_shared layout(#tile.swizzle<32>) : memref<32x16xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc_shared layout(#tile.swizzle<64>) : memref<64x32xf16
    %e = tile.alloc_shared layout(#tile.swizzle<64>) : memref<64x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc_shared layout(#tile.swizzle<128>) : memref<2x64x128xf16
    %f = tile.alloc_shared layout(#tile.swizzle<128>) : memref<2x64x128xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc_shared layout(#tile.shared<{{\[}}[128:64], [2:8192, 64:1]], swizzle 128>) : memref<128x128xf16
    %g = tile.alloc_shared layout(#tile.shared<[[128:64], [2:8192, 64:1]], swizzle 128>) : memref<128x128xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.alloc_shared layout(#tile.shared<{{\[}}[16:1], [8:16]]>) : memref<16x8xf32
    %h = tile.alloc_shared layout(#tile.shared<[[16:1], [8:16]]>) : memref<16x8xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.fragment : !tile.fragment<128x128xf32>
    %i = tile.fragment : !tile.fragment<128x128xf32>
    // CHECK: tile.fragment layout(#tile.fragment<{{\[}}[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    %j = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>) : !tile.fragment<16x8xf32>
    // CHECK: tile.fragment layout(#tile.fragment<{{\[}}[64:t1]], replicate [2:t64]>) : !tile.fragment<64xf32>
    %k = tile.fragment layout(#tile.fragment<[[64:t1]], replicate [2:t64]>) : !tile.fragment<64xf32>
  }
  return
}

// CHECK-LABEL: func.func @copies
func.func @copies(%A: memref<?x?xf16>, %C: memref<1024x256xf32>, %i: index) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<128x32xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<128x32xf16>
    %g = tile.fragment : !tile.fragment<128x32xf32>
    // CHECK: tile.copy %{{.+}}[%{{.+}}, 0] -> %{{.+}} : memref<?x?xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %A[%i, 0] -> %s : memref<?x?xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.copy %{{.+}}[4, %{{.+}}] -> %{{.+}} {pad = 1.000000e+00 : f16} : memref<?x?xf16>, !tile.fragment<128x32xf16>
    tile.copy %A[4, %i] -> %f {pad = 1.0 : f16} : memref<?x?xf16>, !tile.fragment<128x32xf16>
    // CHECK: tile.copy %{{.+}} -> %{{.+}} : memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x32xf16>
    tile.copy %s -> %f : memref<128x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<128x32xf16>
    // CHECK: tile.copy %{{.+}} -> %{{.+}} : !tile.fragment<128x32xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    tile.copy %f -> %s : !tile.fragment<128x32xf16>, memref<128x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.copy %{{.+}} -> %{{.+}} : !tile.fragment<128x32xf16>, !tile.fragment<128x32xf32>
    tile.copy %f -> %g : !tile.fragment<128x32xf16>, !tile.fragment<128x32xf32>
    // CHECK: tile.copy %{{.+}} -> %{{.+}}[%{{.+}}, 64] : !tile.fragment<128x32xf32>, memref<1024x256xf32>
    tile.copy %g -> %C[%i, 64] : !tile.fragment<128x32xf32>, memref<1024x256xf32>
    // CHECK: tile.copy %{{.+}} -> %{{.+}}[0, 0] : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
    tile.copy %s -> %A[0, 0] : memref<128x32xf16, #gpu.address_space<workgroup>>, memref<?x?xf16>
    // CHECK: tile.atomic_add %{{.+}} -> %{{.+}}[%{{.+}}, 0] : !tile.fragment<128x32xf32>, memref<1024x256xf32>
    tile.atomic_add %g -> %C[%i, 0] : !tile.fragment<128x32xf32>, memref<1024x256xf32>
  }
  return
}

// A strided view of a 4-d global tensor, as attention kernels take a head.
// CHECK-LABEL: func.func @strided_global
func.func @strided_global(%Q: memref<2x1024x8x64xf16>, %b: index, %h: index) {
  tile.kernel grid(%bx) in (8) threads(128) {
    %q = memref.subview %Q[%b, 0, %h, 0] [1, 1024, 1, 64] [1, 1, 1, 1]
        : memref<2x1024x8x64xf16> to memref<1024x64xf16, strided<[512, 1], offset: ?>>
    %s = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.copy %{{.+}}[0, 0] -> %{{.+}} : memref<1024x64xf16, strided<[512, 1], offset: ?>>
    tile.copy %q[0, 0] -> %s : memref<1024x64xf16, strided<[512, 1], offset: ?>>, memref<128x64xf16, #gpu.address_space<workgroup>>
  }
  return
}

// CHECK-LABEL: func.func @compute
func.func @compute() {
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %bt = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %af = tile.fragment : !tile.fragment<64x32xf16>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    %row = tile.fragment : !tile.fragment<64xf32>
    %all = tile.fragment : !tile.fragment<1xf32>
    // CHECK: tile.fill %{{.+}}, %{{.+}} : !tile.fragment<64x64xf32>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    // CHECK: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    tile.gemm %a, %b, %acc : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    // CHECK: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} transpose_b clear_accum policy full_row :
    tile.gemm %af, %bt, %acc transpose_b clear_accum policy full_row : !tile.fragment<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    // CHECK: tile.gemm %{{.+}}, %{{.+}}, %{{.+}} transpose_a policy full_col :
    tile.gemm %b, %b, %acc transpose_a policy full_col : memref<32x64xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    // CHECK: tile.reduce sum %{{.+}} -> %{{.+}} dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
    tile.reduce sum %acc -> %row dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
    // CHECK: tile.reduce max %{{.+}} -> %{{.+}} dim 0 {clear = false} :
    tile.reduce max %acc -> %row dim 0 {clear = false} : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
    // CHECK: tile.reduce min
    tile.reduce min %acc -> %row dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
    // CHECK: tile.reduce absmax
    tile.reduce absmax %acc -> %row dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
    // CHECK: tile.reduce abssum %{{.+}} -> %{{.+}} dim 0 : !tile.fragment<64xf32>, !tile.fragment<1xf32>
    tile.reduce abssum %row -> %all dim 0 : !tile.fragment<64xf32>, !tile.fragment<1xf32>
    // CHECK: tile.cumsum %{{.+}} -> %{{.+}} dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64x64xf32>
    tile.cumsum %acc -> %acc dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64x64xf32>
    // CHECK: tile.cumsum %{{.+}} -> %{{.+}} dim 0 reverse :
    tile.cumsum %a -> %a dim 0 reverse : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<64x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// CHECK-LABEL: func.func @gemm_types
func.func @gemm_types() {
  tile.kernel grid(%bx) in (1) threads(128) {
    %h = tile.alloc_shared : memref<16x16xf16, #gpu.address_space<workgroup>>
    %hb = tile.alloc_shared : memref<16x16xbf16, #gpu.address_space<workgroup>>
    %i8 = tile.alloc_shared : memref<16x16xi8, #gpu.address_space<workgroup>>
    %e4 = tile.alloc_shared : memref<16x16xf8E4M3FN, #gpu.address_space<workgroup>>
    %e5 = tile.alloc_shared : memref<16x16xf8E5M2, #gpu.address_space<workgroup>>
    %f64 = tile.alloc_shared : memref<16x16xf64, #gpu.address_space<workgroup>>
    %c16 = tile.fragment : !tile.fragment<16x16xf16>
    %c32 = tile.fragment : !tile.fragment<16x16xf32>
    %ci = tile.fragment : !tile.fragment<16x16xi32>
    %cd = tile.fragment : !tile.fragment<16x16xf64>
    // CHECK-COUNT-6: tile.gemm
    tile.gemm %h, %h, %c16 : memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x16xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf16>
    tile.gemm %hb, %hb, %c32 : memref<16x16xbf16, #gpu.address_space<workgroup>>, memref<16x16xbf16, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
    tile.gemm %i8, %i8, %ci : memref<16x16xi8, #gpu.address_space<workgroup>>, memref<16x16xi8, #gpu.address_space<workgroup>>, !tile.fragment<16x16xi32>
    tile.gemm %e4, %e5, %c32 : memref<16x16xf8E4M3FN, #gpu.address_space<workgroup>>, memref<16x16xf8E5M2, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf32>
    tile.gemm %f64, %f64, %cd : memref<16x16xf64, #gpu.address_space<workgroup>>, memref<16x16xf64, #gpu.address_space<workgroup>>, !tile.fragment<16x16xf64>
    tile.gemm %c32, %c32, %c32 : !tile.fragment<16x16xf32>, !tile.fragment<16x16xf32>, !tile.fragment<16x16xf32>
  }
  return
}

// CHECK-LABEL: func.func @loops
func.func @loops(%G: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %s = tile.fragment : !tile.fragment<64x128xf32>
    %m = tile.fragment : !tile.fragment<64xf32>
    %sh = tile.alloc_shared : memref<64x128xf32, #gpu.address_space<workgroup>>
    // CHECK: tile.parallel (%[[I:.+]], %[[J:.+]]) in (64, 128) {
    tile.parallel (%i, %j) in (64, 128) {
      // CHECK: %[[X:.+]] = tile.load %{{.+}}[%[[I]], %[[J]]] : !tile.fragment<64x128xf32>
      %x = tile.load %s[%i, %j] : !tile.fragment<64x128xf32>
      // CHECK: tile.load %{{.+}}[%[[I]]] : !tile.fragment<64xf32>
      %y = tile.load %m[%i] : !tile.fragment<64xf32>
      // CHECK: tile.load %{{.+}}[%[[J]], %[[I]]] {pad = 0xFF800000 : f32} : memref<?x?xf32>
      %g = tile.load %G[%j, %i] {pad = 0xFF800000 : f32} : memref<?x?xf32>
      %d = arith.subf %x, %y : f32
      %e = arith.addf %d, %g : f32
      // CHECK: tile.store %{{.+}}, %{{.+}}[%[[I]], %[[J]]] : !tile.fragment<64x128xf32>
      tile.store %e, %s[%i, %j] : !tile.fragment<64x128xf32>
      // CHECK: tile.store %{{.+}}, %{{.+}}[%[[J]], %[[I]]] : memref<64x128xf32, #gpu.address_space<workgroup>>
      tile.store %e, %sh[%j, %i] : memref<64x128xf32, #gpu.address_space<workgroup>>
    }
    // A fragment dim read at a uniform index (from outside the loop, or a
    // constant).
    // CHECK: tile.parallel (%[[U:.+]]) in (128) {
    tile.parallel (%u) in (128) {
      // CHECK: tile.load %{{.+}}[%{{.+}}, %[[U]]] : !tile.fragment<64x128xf32>
      %row = tile.load %s[%n, %u] : !tile.fragment<64x128xf32>
      %c3 = arith.constant 3 : index
      // CHECK: tile.store %{{.+}}, %{{.+}}[%{{.+}}, %[[U]]] : !tile.fragment<64x128xf32>
      tile.store %row, %s[%c3, %u] : !tile.fragment<64x128xf32>
    }
    // CHECK: tile.parallel (%{{.+}}) in (64) layout(#tile.fragment<{{\[}}[64:t1]], replicate [2:t64]>) {
    tile.parallel (%i) in (64) layout(#tile.fragment<[[64:t1]], replicate [2:t64]>) {
      %v = tile.load %m[%i] : !tile.fragment<64xf32>
      tile.store %v, %m[%i] : !tile.fragment<64xf32>
    }
    // CHECK: tile.pipelined %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} stages(2) {
    tile.pipelined %k = %c0 to %n step %c1 stages(2) {
      tile.copy %G[0, %k] -> %sh : memref<?x?xf32>, memref<64x128xf32, #gpu.address_space<workgroup>>
    }
    // CHECK: tile.pipelined %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} stages(3) order [1, 0] stage [0, 2] {
    tile.pipelined %k = %c0 to %n step %c1 stages(3) order [1, 0] stage [0, 2] {
      tile.copy %G[0, %k] -> %sh : memref<?x?xf32>, memref<64x128xf32, #gpu.address_space<workgroup>>
      tile.copy %sh -> %s : memref<64x128xf32, #gpu.address_space<workgroup>>, !tile.fragment<64x128xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @prints
func.func @prints(%G: memref<?x8xf16>, %x: f32, %n: i8) {
  tile.kernel grid(%bx, %by) in (2, 3) threads(128) {
    // CHECK: tile.print "hello"{{$}}
    tile.print "hello"
    // CHECK: tile.print "x" %{{.+}} : f32
    tile.print "x" %x : f32
    // CHECK: tile.print "" %{{.+}} : index
    tile.print "" %by : index
    // CHECK: tile.print "n" %{{.+}} unsigned : i8
    tile.print "n" %n unsigned : i8
    // CHECK: tile.print "" %{{.+}} : memref<?x8xf16>
    tile.print "" %G : memref<?x8xf16>
    %s = tile.alloc_shared : memref<16x8xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.print "As" %{{.+}} name "A_shared" thread 32 : memref<16x8xf16, #gpu.address_space<workgroup>>
    tile.print "As" %s name "A_shared" thread 32 : memref<16x8xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<16x8xf32>
    // CHECK: tile.print "acc" %{{.+}} name "C_local" : !tile.fragment<16x8xf32>
    tile.print "acc" %f name "C_local" : !tile.fragment<16x8xf32>
    %l = memref.alloca() : memref<4xi32>
    // CHECK: tile.print "" %{{.+}} name "l" unsigned : memref<4xi32>
    tile.print "" %l name "l" unsigned : memref<4xi32>
    // CHECK: tile.parallel
    tile.parallel (%i, %j) in (16, 8) {
      %v = tile.load %f[%i, %j] : !tile.fragment<16x8xf32>
      // CHECK: tile.print "v" %{{.+}} : f32
      tile.print "v" %v : f32
    }
  }
  return
}

// CHECK-LABEL: func.func @reducers
func.func @reducers(%G: memref<64x128xf16>, %O: memref<64xf32>, %seed: f32) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %x = tile.fragment : !tile.fragment<64x128xf16>
    // CHECK: %[[SUM:.+]] = tile.fragment reducer(sum) : !tile.fragment<64xf32>
    %sum = tile.fragment reducer(sum) : !tile.fragment<64xf32>
    // CHECK: tile.fragment reducer(max) layout(#tile.fragment<{{\[\[}}64:s1]], replicate [128:t1]>) : !tile.fragment<64xf32>
    %max = tile.fragment reducer(max) layout(#tile.fragment<[[64:s1]], replicate [128:t1]>) : !tile.fragment<64xf32>
    // CHECK: %[[MIN:.+]] = tile.fragment reducer(min) : !tile.fragment<1xi32>
    %min = tile.fragment reducer(min) : !tile.fragment<1xi32>
    tile.copy %G[0, 0] -> %x : memref<64x128xf16>, !tile.fragment<64x128xf16>
    tile.fill %max, %seed : !tile.fragment<64xf32>
    // CHECK: tile.parallel (%[[I:.+]], %[[J:.+]]) in (64, 128) {
    tile.parallel (%i, %j) in (64, 128) {
      %v = tile.load %x[%i, %j] : !tile.fragment<64x128xf16>
      %w = arith.extf %v : f16 to f32
      // CHECK: %[[OLD:.+]] = tile.load %[[SUM]][%[[I]]] : !tile.fragment<64xf32>
      // CHECK: %[[NEW:.+]] = arith.addf %[[OLD]], %{{.+}} : f32
      // CHECK: tile.store %[[NEW]], %[[SUM]][%[[I]]] : !tile.fragment<64xf32>
      %old = tile.load %sum[%i] : !tile.fragment<64xf32>
      %new = arith.addf %old, %w : f32
      tile.store %new, %sum[%i] : !tile.fragment<64xf32>
      %m = tile.load %max[%i] : !tile.fragment<64xf32>
      %mm = arith.maxnumf %w, %m : f32
      tile.store %mm, %max[%i] : !tile.fragment<64xf32>
      %n = tile.load %min[%c0] : !tile.fragment<1xi32>
      %k = arith.index_cast %j : index to i32
      %nn = arith.minsi %n, %k : i32
      tile.store %nn, %min[%c0] : !tile.fragment<1xi32>
    }
    // CHECK: tile.finalize_reducer %[[SUM]] : !tile.fragment<64xf32>
    tile.finalize_reducer %sum : !tile.fragment<64xf32>
    tile.finalize_reducer %max : !tile.fragment<64xf32>
    tile.finalize_reducer %min : !tile.fragment<1xi32>
    tile.copy %sum -> %O[0] : !tile.fragment<64xf32>, memref<64xf32>
  }
  return
}

// CHECK-LABEL: func.func @threads
func.func @threads(%Y: memref<64xindex>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    // CHECK: %[[T:.+]] = tile.thread_id thread : index
    %t = tile.thread_id thread : index
    // CHECK-NEXT: %{{.+}} = tile.thread_id lane : index
    %lane = tile.thread_id lane : index
    // CHECK-NEXT: %{{.+}} = tile.thread_id warp : index
    %warp = tile.thread_id warp : index
    // CHECK-NEXT: tile.barrier
    tile.barrier
    memref.store %lane, %Y[%t] : memref<64xindex>
  }
  return
}

// CHECK-LABEL: func.func @fences
func.func @fences(%C: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  tile.kernel grid(%bx) in (4) threads(32) {
    // CHECK: tile.fence release
    tile.fence release
    %old = memref.atomic_rmw addi %one, %C[%c0] : (i32, memref<1xi32>) -> i32
    // CHECK: tile.fence acquire
    tile.fence acquire
    tile.parallel (%i) in (1) {
      // CHECK: tile.fence acq_rel
      tile.fence acq_rel
      // CHECK: tile.fence seq_cst
      tile.fence seq_cst
    }
  }
  return
}

// CHECK-LABEL: func.func @im2col
func.func @im2col(%img: memref<?x?x?x?xf16>, %b: index, %k: index) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %cols = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    // CHECK: tile.im2col %{{.+}}[%{{.+}}, %{{.+}}] -> %{{.+}} kernel 3 stride 2 dilation 1 padding 0 : memref<?x?x?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.im2col %img[%b, %k] -> %cols kernel 3 stride 2 dilation 1 padding 0 : memref<?x?x?x?xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// Warp specialization by hand (TileLang's T.ws, T.alloc_barrier,
// T.tma_copy): thread ranges, barriers and a copy that signals one.
// CHECK-LABEL: func.func @thread_ranges
func.func @thread_ranges(%A: memref<?x?xf16>, %k: index, %parity: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (4) threads(256) {
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    // CHECK: %[[BARS:.+]] = tile.alloc_barrier [128, 256] : !tile.barrier<2>
    %bars = tile.alloc_barrier [128, 256] : !tile.barrier<2>
    // CHECK: tile.thread_range 128 to 256 {
    tile.thread_range 128 to 256 {
      // CHECK: tile.barrier_wait %[[BARS]][%{{.+}}], %{{.+}} : !tile.barrier<2>
      tile.barrier_wait %bars[%c1], %parity : !tile.barrier<2>
      // CHECK: tile.copy %{{.+}}[%{{.+}}, %{{.+}}] -> %{{.+}} barrier(%[[BARS]][%{{.+}}]) : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.barrier<2>
      tile.copy %A[%c0, %k] -> %As barrier(%bars[%c0]) : memref<?x?xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>, !tile.barrier<2>
      // CHECK: tile.barrier_arrive %[[BARS]][%{{.+}}] : !tile.barrier<2>
      tile.barrier_arrive %bars[%c0] : !tile.barrier<2>
    }
    // CHECK: tile.thread_range 0 to 128 {
    tile.thread_range 0 to 128 {
      tile.barrier_wait %bars[%c0], %parity : !tile.barrier<2>
      tile.barrier_arrive %bars[%c1] : !tile.barrier<2>
    }
  }
  return
}
