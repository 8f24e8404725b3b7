// RUN: tile-opt %s --split-input-file --tile-attach-target=chip=sm_80 --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// Every thread prints the message and scalars, with the hardware's block ids
// and its thread id; i1 as words, narrow integers promoted to i32, floats to
// f64, index to i64.
// CHECK-LABEL: func.func @scalars
// CHECK: threads(%[[TID:.+]], %{{.+}}, %{{.+}}) in
// CHECK-DAG: %[[BX:.+]] = gpu.block_id x
// CHECK-DAG: %[[BY:.+]] = gpu.block_id y
// CHECK-DAG: %[[BZ:.+]] = gpu.block_id z
// CHECK-DAG: %[[X:.+]] = arith.index_cast %[[BX]] : index to i32
// CHECK-DAG: %[[Y:.+]] = arith.index_cast %[[BY]] : index to i32
// CHECK-DAG: %[[Z:.+]] = arith.index_cast %[[BZ]] : index to i32
// CHECK-DAG: %[[T:.+]] = arith.index_cast %[[TID]] : index to i32
// CHECK: gpu.printf "msg='hello' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0)\0A", %[[X]], %[[Y]], %[[Z]], %[[T]] : i32, i32, i32, i32
// CHECK: %[[F:.+]] = arith.extf %{{.+}} : f32 to f64
// CHECK: gpu.printf "msg='x' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=float value=%f\0A", %[[X]], %[[Y]], %[[Z]], %[[T]], %[[F]] : i32, i32, i32, i32, f64
// CHECK: %[[I:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: gpu.printf "msg='by' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=index value=%ld\0A", {{.*}}, %[[I]] : i32, i32, i32, i32, i64
// CHECK: %[[U:.+]] = arith.extui %{{.+}} : i8 to i32
// CHECK: gpu.printf "msg='100%%' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=unsigned char value=%u\0A", {{.*}}, %[[U]] : i32, i32, i32, i32, i32
// CHECK: %[[S:.+]] = arith.extsi %{{.+}} : i16 to i32
// CHECK: gpu.printf "msg='s' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=short value=%d\0A", {{.*}}, %[[S]] : i32, i32, i32, i32, i32
// CHECK: gpu.printf "msg='l' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=long value=%ld\0A", {{.*}} : i32, i32, i32, i32, i64
// CHECK: gpu.printf "msg='d' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=double value=%lf\0A", {{.*}} : i32, i32, i32, i32, f64
// CHECK: %[[C:.+]] = arith.cmpi eq
// CHECK: scf.if %[[C]] {
// CHECK-NEXT: gpu.printf "msg='c' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=bool value=true\0A"
// CHECK-NEXT: } else {
// CHECK-NEXT: gpu.printf "msg='c' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=bool value=false\0A"
// CHECK-NEXT: }
func.func @scalars(%x: f32, %n: i8, %s: i16, %l: i64, %d: f64) {
  tile.kernel grid(%bx, %by) in (2, 3) threads(128) {
    tile.print "hello"
    tile.print "x" %x : f32
    tile.print "by" %by : index
    tile.print "100%" %n unsigned : i8
    tile.print "s" %s : i16
    tile.print "l" %l : i64
    tile.print "d" %d : f64
    %c = arith.cmpi eq, %bx, %by : index
    tile.print "c" %c : i1
  }
  return
}

// -----

// A shared buffer: a barrier, then thread 32 reads the elements through the
// buffer's layout (here a 64-byte swizzle) in row-major order.
// CHECK-LABEL: func.func @shared
// CHECK: threads(%[[TID:.+]], %{{.+}}, %{{.+}}) in
// CHECK: gpu.block_id z
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[ME:.+]] = arith.cmpi eq, %[[TID]], %c32 : index
// CHECK-NEXT: scf.if %[[ME]] {
// CHECK-NEXT: scf.for %[[I:.+]] = %c0 to %c512 step %c1 {
// CHECK: arith.xori
// CHECK: %[[V:.+]] = memref.load %{{.+}}[%{{.+}}] : memref<512xf16, #gpu.address_space<workgroup>>
// CHECK: %[[FLAT:.+]] = arith.index_cast %[[I]] : index to i32
// CHECK: %[[W:.+]] = arith.extf %[[V]] : f16 to f64
// CHECK: gpu.printf "msg='buffer<A_shared, float16>' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): buffer=A_shared, index=%d, dtype=half_t value=%f\0A", %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[FLAT]], %[[W]] : i32, i32, i32, i32, i32, f64
func.func @shared(%A: memref<16x32xf16>) {
  tile.kernel grid(%bx) in (1) threads(128) {
    %s = tile.alloc_shared layout(#tile.swizzle<64>) : memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.copy %A[0, 0] -> %s : memref<16x32xf16>, memref<16x32xf16, #gpu.address_space<workgroup>>
    tile.print "buffer<A_shared, float16>" %s name "A_shared" thread 32 : memref<16x32xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A fragment is gathered into row-major shared scratch by the threads that
// hold its elements, between barriers, and thread 0 prints the scratch.
// CHECK-LABEL: func.func @fragment
// CHECK: threads(%[[TID:.+]], %{{.+}}, %{{.+}}) in
// CHECK: %[[SCRATCH:.+]] = memref.view %{{.+}}[%{{.+}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<48xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK: vector.store %{{.+}}, %[[SCRATCH]][%{{.+}}] {{.*}} : memref<48xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK-NEXT: %[[ME:.+]] = arith.cmpi eq, %[[TID]], %c0 : index
// CHECK-NEXT: scf.if %[[ME]] {
// CHECK-NEXT: scf.for %[[I:.+]] = %c0 to %c48 step %c1 {
// CHECK-NEXT: %[[V:.+]] = memref.load %[[SCRATCH]][%[[I]]] : memref<48xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.printf "msg='acc' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): buffer=fragment, index=%d, dtype=float value=%f\0A"
func.func @fragment(%A: memref<6x8xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %f = tile.fragment : !tile.fragment<6x8xf32>
    tile.copy %A[0, 0] -> %f : memref<6x8xf32>, !tile.fragment<6x8xf32>
    tile.print "acc" %f : !tile.fragment<6x8xf32>
  }
  return
}

// -----

// A global tensor of dynamic rows, printed by thread 0 after a barrier; a
// thread-local buffer by every thread, with no barrier.
// CHECK-LABEL: func.func @global_and_local
// CHECK: threads(%[[TID:.+]], %{{.+}}, %{{.+}}) in
// CHECK: gpu.barrier
// CHECK-NEXT: %[[ME:.+]] = arith.cmpi eq, %[[TID]], %c0 : index
// CHECK-NEXT: scf.if %[[ME]] {
// CHECK-NEXT: %[[ROWS:.+]] = memref.dim %{{.+}}, %c0 : memref<?x4xi32>
// CHECK-NEXT: %[[N:.+]] = arith.muli %[[ROWS]], %c4 : index
// CHECK-NEXT: scf.for %{{.+}} = %c0 to %[[N]] step %c1 {
// CHECK: gpu.printf "msg='' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): buffer=G, index=%d, dtype=int value=%d\0A"
// CHECK-NOT: gpu.barrier
// CHECK-NOT: scf.if
// CHECK: scf.for %{{.+}} = %c0 to %c2 step %c1 {
// CHECK: memref.load %{{.+}}[%{{.+}}] : memref<2xi32>
// CHECK: gpu.printf "msg='buffer<l, int32>' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): buffer=l, index=%d, dtype=int value=%d\0A"
func.func @global_and_local(%G: memref<?x4xi32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    tile.print "" %G name "G" : memref<?x4xi32>
    %l = memref.alloca() : memref<2xi32>
    tile.print "buffer<l, int32>" %l name "l" : memref<2xi32>
  }
  return
}

// -----

// In a tile.parallel body each iteration prints from the thread that runs
// it: the print is lowered in the iteration's guarded copy, after the
// element read from the thread's slot.
// CHECK-LABEL: func.func @in_parallel
// CHECK: threads(%[[TID:.+]], %{{.+}}, %{{.+}}) in
// CHECK: %[[OWNS:.+]] = arith.cmpi ult, %[[TID]], %c32 : index
// CHECK: scf.if %[[OWNS]] {
// CHECK: %[[V:.+]] = memref.load %{{.+}}[%c0] : memref<1xf32>
// CHECK: %[[W:.+]] = arith.extf %[[V]] : f32 to f64
// CHECK: gpu.printf "msg='v' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0): dtype=float value=%f\0A", {{.*}}, %[[W]] : i32, i32, i32, i32, f64
// CHECK-NOT: tile.print
func.func @in_parallel(%A: memref<32xf32>) {
  tile.kernel grid(%bx) in (1) threads(64) {
    %f = tile.fragment layout(#tile.fragment<[[32:t1]]>) : !tile.fragment<32xf32>
    tile.copy %A[0] -> %f : memref<32xf32>, !tile.fragment<32xf32>
    tile.parallel (%i) in (32) {
      %v = tile.load %f[%i] : !tile.fragment<32xf32>
      tile.print "v" %v : f32
    }
  }
  return
}
