// RUN: tile-opt %s --split-input-file --tile-insert-barriers --verify-diagnostics | FileCheck %s

// TileLang's split-K GEMV: thread tk == 0 zeroes its row's shared slot,
// every thread adds its part atomically, thread tk == 0 reads the slot. A
// barrier after the zeroing (atomics after a write) and one before the read
// (a read after atomics); none between the atomics (among themselves they
// do not conflict), none before the global store.
// CHECK-LABEL: func.func @gemv
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.atomic_rmw
// CHECK-NEXT: memref.atomic_rmw
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.if
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NOT: tile.barrier
func.func @gemv(%Y: memref<16xf32>, %part: f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%bx) in (1) threads(64) {
    %slots = tile.alloc_shared : memref<16xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    %tn = arith.remui %t, %c16 : index
    %tk = arith.divui %t, %c16 : index
    %first = arith.cmpi eq, %tk, %c0 : index
    scf.if %first {
      memref.store %zero, %slots[%tn] : memref<16xf32, #gpu.address_space<workgroup>>
    }
    %a = memref.atomic_rmw addf %part, %slots[%tn] : (f32, memref<16xf32, #gpu.address_space<workgroup>>) -> f32
    %b = memref.atomic_rmw addf %part, %slots[%tn] : (f32, memref<16xf32, #gpu.address_space<workgroup>>) -> f32
    scf.if %first {
      %v = memref.load %slots[%tn] : memref<16xf32, #gpu.address_space<workgroup>>
      memref.store %v, %Y[%tn] : memref<16xf32>
    }
  }
  return
}

// -----

// A loop whose iterations write a shared buffer and then read what other
// threads wrote: a barrier between (the write and the read) and one before
// the write (the next iteration's write after this one's read), both
// in the loop, whose bounds are the same in every thread.
// CHECK-LABEL: func.func @loop
// CHECK: scf.for
// CHECK-NEXT: memref.load
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.store
// CHECK-NEXT: arith.subi
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
func.func @loop(%X: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  tile.kernel grid(%bx) in (1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %X[%t] : memref<?xf32>
      memref.store %x, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      %r = arith.subi %c63, %t : index
      %y = memref.load %s[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %X[%t] : memref<?xf32>
    }
  }
  return
}

// -----

// A written barrier ends what is pending; accesses to different buffers do
// not conflict; a tile op's accesses count as any other's.
// CHECK-LABEL: func.func @written
// CHECK: memref.store %{{.+}}, %[[A:.+]][
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: memref.load %[[A]]
// CHECK-NEXT: memref.store %{{.+}}, %[[B:.+]][
// CHECK-NEXT: memref.load %[[A]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy %[[B]]
func.func @written(%Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %b = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    memref.store %one, %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    tile.barrier
    %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %b[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    %y = memref.load %a[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    tile.copy %b -> %Y[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
  }
  return
}

// -----

// Kernels without thread indices are left alone.
// CHECK-LABEL: func.func @uniform
// CHECK-NOT: tile.barrier
func.func @uniform(%Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (1) threads(64) {
    %a = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %one, %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    %x = memref.load %a[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %Y[%c0] : memref<64xf32>
  }
  return
}

// -----

func.func @varying_operand(%X: memref<1024xf32>) {
  %c64 = arith.constant 64 : index
  tile.kernel grid(%bx) in (1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    %at = arith.muli %t, %c64 : index
    // expected-error @+1 {{'tile.copy' op operand #2 depends on a thread index: a tile op runs in all threads together and needs the same operands in each}}
    tile.copy %X[%at] -> %s : memref<1024xf32>, memref<64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @divergent(%X: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    %first = arith.cmpi eq, %t, %c0 : index
    // expected-note @+1 {{the control flow is here}}
    scf.if %first {
      // expected-error @+1 {{'tile.barrier' op is under control flow that differs between threads: every thread must reach it}}
      tile.barrier
    }
  }
  return
}

// -----

func.func @in_parallel() {
  tile.kernel grid(%bx) in (1) threads(64) {
    %f = tile.fragment : !tile.fragment<64xi32>
    %t = tile.thread_id thread : index
    %v = arith.index_cast %t : index to i32
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'tile.store' op uses a value that depends on a thread index in a 'tile.parallel' body, whose iterations the compiler assigns to threads}}
      tile.store %v, %f[%i] : !tile.fragment<64xi32>
    }
  }
  return
}

// -----

// A thread's own variable that every thread writes alike (a uniform
// counter: the same value at the same index, not under control flow that
// differs, not in a tile.parallel) reads the same in every thread: a
// tile.parallel may use it, in a kernel that reads thread indices.
// CHECK-LABEL: func.func @uniform_private
// CHECK: tile.parallel
func.func @uniform_private(%X: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1i = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : i32
  tile.kernel grid(%bx) in (1) threads(64) {
    %t = tile.thread_id thread : index
    %n = memref.alloca() : memref<1xi32>
    memref.store %c1, %n[%c0] : memref<1xi32>
    scf.for %k = %c0 to %c4 step %c1i {
      %old = memref.load %n[%c0] : memref<1xi32>
      %new = arith.addi %old, %c1 : i32
      memref.store %new, %n[%c0] : memref<1xi32>
    }
    %v = memref.load %n[%c0] : memref<1xi32>
    %f = tile.fragment : !tile.fragment<64xi32>
    tile.parallel (%i) in (64) {
      tile.store %v, %f[%i] : !tile.fragment<64xi32>
    }
  }
  return
}

// -----

// The same variable written under a branch on the thread index differs
// between threads.
func.func @divergent_private(%X: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  tile.kernel grid(%bx) in (1) threads(64) {
    %t = tile.thread_id thread : index
    %n = memref.alloca() : memref<1xi32>
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      memref.store %c1, %n[%c0] : memref<1xi32>
    }
    %v = memref.load %n[%c0] : memref<1xi32>
    %f = tile.fragment : !tile.fragment<64xi32>
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'tile.store' op uses a value that depends on a thread index in a 'tile.parallel' body}}
      tile.store %v, %f[%i] : !tile.fragment<64xi32>
    }
  }
  return
}

// -----

// Or written in a tile.parallel, whose iterations are spread over the
// threads.
func.func @parallel_private(%X: memref<64xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : i32
  tile.kernel grid(%bx) in (1) threads(64) {
    %t = tile.thread_id thread : index
    %n = memref.alloca() : memref<1xi32>
    memref.store %c1, %n[%c0] : memref<1xi32>
    tile.parallel (%i) in (64) {
      %x = memref.load %X[%i] : memref<64xi32>
      memref.store %x, %n[%c0] : memref<1xi32>
    }
    %v = memref.load %n[%c0] : memref<1xi32>
    %f = tile.fragment : !tile.fragment<64xi32>
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'tile.store' op uses a value that depends on a thread index in a 'tile.parallel' body}}
      tile.store %v, %f[%i] : !tile.fragment<64xi32>
    }
  }
  return
}

// -----

// In a kernel that reads thread indices, the tile ops of a thread range are
// its threads' (not under divergent control flow), and the barriers it
// needs between its threads' own accesses go inside it (barriers of the
// range); what it shares with the code around it the kernel's barriers
// order (none added there).
// CHECK-LABEL: func.func @thread_ranges
func.func @thread_ranges(%X: memref<64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %t = tile.thread_id thread : index
    %s = tile.alloc_shared : memref<64xf32, #gpu.address_space<workgroup>>
    %bars = tile.alloc_barrier [64] : !tile.barrier<1>
    // CHECK: tile.thread_range 0 to 64 {
    // CHECK-NEXT: memref.load
    // CHECK-NEXT: memref.store
    // CHECK-NEXT: tile.barrier
    // CHECK-NEXT: tile.copy
    // CHECK-NEXT: tile.barrier_arrive
    // CHECK-NEXT: }
    tile.thread_range 0 to 64 {
      %v = memref.load %X[%t] : memref<64xf32>
      memref.store %v, %s[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      tile.copy %s -> %Y[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
      tile.barrier_arrive %bars[%c0] : !tile.barrier<1>
    }
    // CHECK: tile.thread_range 64 to 128 {
    // CHECK-NEXT: tile.barrier_wait
    // CHECK-NEXT: tile.copy
    // CHECK-NEXT: }
    tile.thread_range 64 to 128 {
      tile.barrier_wait %bars[%c0], %c0 : !tile.barrier<1>
      tile.copy %s -> %Y[0] : memref<64xf32, #gpu.address_space<workgroup>>, memref<64xf32>
    }
  }
  return
}
