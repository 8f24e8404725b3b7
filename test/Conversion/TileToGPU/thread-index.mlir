// RUN: tile-opt %s --tile-attach-target=chip=sm_80 --tile-insert-barriers --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,NV
// RUN: tile-opt %s --tile-attach-target=chip=gfx942 --tile-insert-barriers --tile-infer-layouts --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefixes=CHECK,AMD

// A thread index is the launch's thread id, a lane and a warp count the
// target's warps (32 on NVIDIA, 64 on AMD); the barriers are the block's;
// a thread's own loads and stores of a shared buffer reach its storage (a
// view of the dynamic shared memory) at the element's place in its layout.
// CHECK-LABEL: func.func @indices
// NV: %[[W:.+]] = arith.constant 32 : index
// AMD: %[[W:.+]] = arith.constant 64 : index
// CHECK: threads(%[[T:[^,]+]], %{{[^,]+}}, %{{[^,]+}}) in
// CHECK: %[[S:.+]] = memref.view
// CHECK-DAG: %[[LANE:.+]] = arith.remui %[[T]], %[[W]] : index
// CHECK-DAG: %[[WARP:.+]] = arith.divui %[[T]], %[[W]] : index
// CHECK: memref.store %{{.+}}, %[[S]][%[[T]]] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[S]][%[[LANE]]] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: memref.store %{{.+}}, %{{.+}}[%[[WARP]], %[[T]]] : memref<4x128xf32>
func.func @indices(%Y: memref<4x128xf32>) {
  %one = arith.constant 1.0 : f32
  tile.kernel grid(%bx) in (1) threads(128) {
    %s = tile.alloc_shared : memref<128xf32, #gpu.address_space<workgroup>>
    %t = tile.thread_id thread : index
    %lane = tile.thread_id lane : index
    %warp = tile.thread_id warp : index
    memref.store %one, %s[%t] : memref<128xf32, #gpu.address_space<workgroup>>
    %x = memref.load %s[%lane] : memref<128xf32, #gpu.address_space<workgroup>>
    memref.store %x, %Y[%warp, %t] : memref<4x128xf32>
  }
  return
}
