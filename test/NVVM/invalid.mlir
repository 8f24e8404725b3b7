// Programs the GPU lowering cannot run get a diagnostic at the op, not a
// crash.
// RUN: tile-opt %s --split-input-file --verify-diagnostics --tile-to-nvvm="chip=sm_80 format=isa"

func.func @order(%G: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %sh = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x64xf16>
    // expected-error @+1 {{'order' other than the body's own order is not supported by the GPU lowering yet}}
    tile.pipelined %k = %c0 to %n step %c1 stages(3) order [1, 0] {
      tile.copy %G[0, %k] -> %sh : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %sh -> %f : memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf16>
    }
  }
  return
}

// -----

func.func @early_consumer(%G: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  tile.kernel grid(%bx) in (1) threads(128) {
    %sh = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x64xf16>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) stage [0, 1] {
      // expected-error @+1 {{is scheduled in pipeline stage 0 of 1, but only global-to-shared copies can run ahead, and it is not a copy}}
      tile.fill %sh, %zero : memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %sh -> %f : memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf16>
    }
  }
  return
}

// -----

func.func @early_not_async(%G: memref<?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (1) threads(128) {
    %sh = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<64x64xf16>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) stage [0, 1] {
      // expected-error @+1 {{only global-to-shared copies can run ahead, and it pads with a value other than 0}}
      tile.copy %G[0, %k] -> %sh {pad = 1.0 : f16} : memref<?x?xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %sh -> %f : memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf16>
    }
  }
  return
}

// -----

func.func @too_much_shared() {
  // expected-error @+1 {{needs 262144 bytes of shared memory; sm_80 allows 166912}}
  tile.kernel grid(%bx) in (1) threads(128) {
    %sh = tile.alloc_shared : memref<512x256xf16, #gpu.address_space<workgroup>>
    %zero = arith.constant 0.0 : f16
    tile.fill %sh, %zero : memref<512x256xf16, #gpu.address_space<workgroup>>
  }
  return
}

// -----

func.func @early_im2col_narrow(%img: memref<?x?x?x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%bx) in (1) threads(32) {
    %cols = tile.alloc_shared : memref<16x6xf16, #gpu.address_space<workgroup>>
    %f = tile.fragment : !tile.fragment<16x6xf16>
    tile.pipelined %k = %c0 to %n step %c1 stages(2) stage [0, 1] {
      // expected-error @+1 {{'tile.im2col' op is scheduled in pipeline stage 0 of 1, but only global-to-shared copies can run ahead, and its rows are not whole 16-byte chunks of unit-stride channels}}
      tile.im2col %img[%bx, %k] -> %cols kernel 3 stride 1 dilation 1 padding 1 : memref<?x?x?x?xf16>, memref<16x6xf16, #gpu.address_space<workgroup>>
      tile.copy %cols -> %f : memref<16x6xf16, #gpu.address_space<workgroup>>, !tile.fragment<16x6xf16>
    }
  }
  return
}
