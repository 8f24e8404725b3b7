// RUN: tile-opt %s --pass-pipeline="builtin.module(gpu.module(tile-int8-to-float-by-bits))" | FileCheck %s

gpu.module @kernels {
  // Four bytes a word: one xor flips their sign bits, a prmt puts two of
  // them under 0x64 (1024.0 as f16), and 1152 (1024 + 128) is subtracted.
  // CHECK-LABEL: func.func @signed_f16
  // CHECK-DAG: %[[HI:.*]] = arith.constant 17218 : i32
  // CHECK-DAG: %[[LO:.*]] = arith.constant 16704 : i32
  // CHECK-DAG: %[[BASE:.*]] = arith.constant 1684300900 : i32
  // CHECK: %[[W:.*]] = vector.bitcast %{{.*}} : vector<8xi8> to vector<2xi32>
  // CHECK: %[[F:.*]] = arith.xori %[[W]], %{{.*}} : vector<2xi32>
  // CHECK: %[[W0:.*]] = vector.extract %[[F]][0]
  // CHECK: nvvm.prmt <default> %[[LO]], %[[W0]], %[[BASE]]
  // CHECK: nvvm.prmt <default> %[[HI]], %[[W0]], %[[BASE]]
  // CHECK-COUNT-2: nvvm.prmt
  // CHECK: %[[B:.*]] = vector.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
  // CHECK: arith.subf %[[B]], %{{.*}} : vector<8xf16>
  func.func @signed_f16(%x: vector<8xi8>) -> vector<8xf16> {
    %y = arith.sitofp %x : vector<8xi8> to vector<8xf16>
    return %y : vector<8xf16>
  }

  // f32: one byte per word, under 0x4B (2^23); unsigned needs no xor.
  // CHECK-LABEL: func.func @unsigned_f32
  // CHECK: %[[BIAS:.*]] = arith.constant dense<0x4B000000> : vector<4xf32>
  // CHECK-NOT: arith.xori
  // CHECK-COUNT-4: nvvm.prmt
  // CHECK: %[[V:.*]] = vector.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
  // CHECK: arith.subf %[[V]], %[[BIAS]]
  func.func @unsigned_f32(%x: vector<4xi8>) -> vector<4xf32> {
    %y = arith.uitofp %x : vector<4xi8> to vector<4xf32>
    return %y : vector<4xf32>
  }

  // Scalars and vectors of other lengths: the same arithmetic on each
  // element, left to LLVM.
  // CHECK-LABEL: func.func @scalar
  // CHECK: %[[U:.*]] = arith.xori %{{.*}}, %c-128_i8 : i8
  // CHECK: %[[E:.*]] = arith.extui %[[U]] : i8 to i16
  // CHECK: %[[O:.*]] = arith.ori %[[E]], %c25600_i16 : i16
  // CHECK: %[[H:.*]] = arith.bitcast %[[O]] : i16 to f16
  // CHECK: arith.subf %[[H]], %cst : f16
  func.func @scalar(%x: i8) -> f16 {
    %y = arith.sitofp %x : i8 to f16
    return %y : f16
  }
  // CHECK-LABEL: func.func @odd_vector
  // CHECK: arith.extui %{{.*}} : vector<3xi8> to vector<3xi32>
  func.func @odd_vector(%x: vector<3xi8>) -> vector<3xf32> {
    %y = arith.uitofp %x : vector<3xi8> to vector<3xf32>
    return %y : vector<3xf32>
  }

  // Other widths keep the conversion instruction.
  // CHECK-LABEL: func.func @others
  // CHECK: arith.sitofp %{{.*}} : i16 to f16
  // CHECK: arith.sitofp %{{.*}} : i8 to bf16
  func.func @others(%x: i16, %b: i8) -> (f16, bf16) {
    %y = arith.sitofp %x : i16 to f16
    %z = arith.sitofp %b : i8 to bf16
    return %y, %z : f16, bf16
  }
}

gpu.module @ranges {
  // A 4-bit value minus its zero point ([-8, 7]): 1536 + x (0x6600 + x as
  // 16 bits) minus 1536, one element per word.
  // CHECK-LABEL: func.func @nibble
  // CHECK: %[[Q:.*]] = arith.subi
  // CHECK: %[[B:.*]] = arith.addi %[[Q]], %{{.*}} : vector<4xi32>
  // CHECK: %[[T:.*]] = arith.trunci %[[B]] : vector<4xi32> to vector<4xi16>
  // CHECK: %[[H:.*]] = arith.bitcast %[[T]] : vector<4xi16> to vector<4xf16>
  // CHECK: arith.subf %[[H]], %{{.*}} : vector<4xf16>
  // CHECK-NOT: sitofp
  func.func @nibble(%x: vector<4xi32>) -> vector<4xf16> {
    %mask = arith.constant dense<15> : vector<4xi32>
    %zero = arith.constant dense<8> : vector<4xi32>
    %n = arith.andi %x, %mask : vector<4xi32>
    %q = arith.subi %n, %zero : vector<4xi32>
    %y = arith.sitofp %q : vector<4xi32> to vector<4xf16>
    return %y : vector<4xf16>
  }
  // f32: 2^23 + 2^22 + x minus the same, for x within 2^22.
  // CHECK-LABEL: func.func @byte_f32
  // CHECK: arith.addi %{{.*}}, %c1262485504_i32 : i32
  // CHECK: arith.bitcast %{{.*}} : i32 to f32
  // CHECK: arith.subf %{{.*}}, %cst : f32
  func.func @byte_f32(%b: i8) -> f32 {
    %x = arith.extsi %b : i8 to i32
    %y = arith.sitofp %x : i32 to f32
    return %y : f32
  }
  // Unbounded: the instruction stays.
  // CHECK-LABEL: func.func @unbounded
  // CHECK: arith.sitofp %{{.*}} : i32 to f16
  func.func @unbounded(%x: i32) -> f16 {
    %y = arith.sitofp %x : i32 to f16
    return %y : f16
  }
}

gpu.module @nibbles {
  // Two 4-bit weights a byte, as a T.Parallel over
  // `(packed[i, j // 2] >> (j % 2) * 4) & 15` vectorizes: each word of
  // bytes gives its low nibbles (w & 0x0F0F0F0F) and high ones
  // ((w >> 4) & 0x0F0F0F0F), one prmt per four weights interleaves them
  // (0x5140: lo.b0, hi.b0, lo.b1, hi.b1; 0x7362 the next two bytes), and
  // minus the zero point they convert by words: 1024 + q minus 1032.
  // CHECK-LABEL: func.func @w4
  // CHECK-DAG: %[[BASE:.*]] = arith.constant dense<1.032000e+03> : vector<8xf16>
  // CHECK-DAG: %[[MASK:.*]] = arith.constant 252645135 : i32
  // CHECK-DAG: %[[FOUR:.*]] = arith.constant 4 : i32
  // CHECK-DAG: %[[S0:.*]] = arith.constant 20800 : i32
  // CHECK-DAG: %[[S1:.*]] = arith.constant 29538 : i32
  // CHECK: %[[W:.*]] = vector.bitcast %{{.*}} : vector<4xi8> to vector<1xi32>
  // CHECK: %[[W0:.*]] = vector.extract %[[W]][0]
  // CHECK: %[[LO:.*]] = arith.andi %[[W0]], %[[MASK]]
  // CHECK: %[[SH:.*]] = arith.shrui %[[W0]], %[[FOUR]]
  // CHECK: %[[HI:.*]] = arith.andi %[[SH]], %[[MASK]]
  // CHECK: %[[A:.*]] = nvvm.prmt <default> %[[S0]], %[[LO]], %[[HI]]
  // CHECK: %[[B:.*]] = nvvm.prmt <default> %[[S1]], %[[LO]], %[[HI]]
  // CHECK: nvvm.prmt <default> %{{.*}}, %[[A]], %{{.*}}
  // CHECK: nvvm.prmt <default> %{{.*}}, %[[A]], %{{.*}}
  // CHECK: nvvm.prmt <default> %{{.*}}, %[[B]], %{{.*}}
  // CHECK: nvvm.prmt <default> %{{.*}}, %[[B]], %{{.*}}
  // CHECK: %[[F:.*]] = vector.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
  // CHECK: %[[R:.*]] = arith.subf %[[F]], %[[BASE]] : vector<8xf16>
  // CHECK-NOT: sitofp
  // CHECK: return %[[R]]
  func.func @w4(%b: vector<4xi8>) -> vector<8xf16> {
    %shifts = arith.constant dense<[0, 4, 0, 4, 0, 4, 0, 4]> : vector<8xi32>
    %mask = arith.constant dense<15> : vector<8xi32>
    %zero = arith.constant dense<8> : vector<8xi32>
    %r = vector.shuffle %b, %b [0, 0, 1, 1, 2, 2, 3, 3] : vector<4xi8>, vector<4xi8>
    %e = arith.extsi %r : vector<8xi8> to vector<8xi32>
    %s = arith.shrsi %e, %shifts : vector<8xi32>
    %n = arith.andi %s, %mask : vector<8xi32>
    %q = arith.subi %n, %zero : vector<8xi32>
    %y = arith.sitofp %q : vector<8xi32> to vector<8xf16>
    return %y : vector<8xf16>
  }
  // The high nibble first (0x1504, 0x3726) and the subtraction is the
  // base: 1024.
  // CHECK-LABEL: func.func @high_first
  // CHECK-DAG: arith.constant 5380 : i32
  // CHECK-DAG: arith.constant 14118 : i32
  // CHECK-DAG: arith.constant dense<1.024000e+03> : vector<8xf16>
  func.func @high_first(%b: vector<4xi8>) -> vector<8xf16> {
    %shifts = arith.constant dense<[4, 0, 4, 0, 4, 0, 4, 0]> : vector<8xi32>
    %mask = arith.constant dense<15> : vector<8xi32>
    %r = vector.shuffle %b, %b [0, 0, 1, 1, 2, 2, 3, 3] : vector<4xi8>, vector<4xi8>
    %e = arith.extui %r : vector<8xi8> to vector<8xi32>
    %s = arith.shrui %e, %shifts : vector<8xi32>
    %n = arith.andi %s, %mask : vector<8xi32>
    %y = arith.uitofp %n : vector<8xi32> to vector<8xf16>
    return %y : vector<8xf16>
  }
  // Other masks and shifts, and a word's results from two words of bytes,
  // keep the integer arithmetic.
  // CHECK-LABEL: func.func @kept
  // CHECK: arith.shrsi
  // CHECK: arith.andi %{{.*}} : vector<8xi32>
  // CHECK: arith.shrsi
  // CHECK: arith.andi %{{.*}} : vector<4xi32>
  func.func @kept(%b: vector<4xi8>, %c: vector<8xi8>) -> (vector<8xi32>, vector<4xi32>) {
    %shifts = arith.constant dense<[0, 2, 4, 6, 0, 2, 4, 6]> : vector<8xi32>
    %mask3 = arith.constant dense<3> : vector<8xi32>
    %r = vector.shuffle %b, %b [0, 0, 0, 0, 1, 1, 1, 1] : vector<4xi8>, vector<4xi8>
    %e = arith.extsi %r : vector<8xi8> to vector<8xi32>
    %s = arith.shrsi %e, %shifts : vector<8xi32>
    %n = arith.andi %s, %mask3 : vector<8xi32>
    %four = arith.constant dense<4> : vector<4xi32>
    %mask = arith.constant dense<15> : vector<4xi32>
    %r2 = vector.shuffle %c, %c [0, 3, 4, 7] : vector<8xi8>, vector<8xi8>
    %e2 = arith.extsi %r2 : vector<4xi8> to vector<4xi32>
    %s2 = arith.shrsi %e2, %four : vector<4xi32>
    %n2 = arith.andi %s2, %mask : vector<4xi32>
    return %n, %n2 : vector<8xi32>, vector<4xi32>
  }
  // Bytes widened, minus a constant, converted: by words, minus 1024 +
  // 128 (signed) + 3; an unsigned conversion of a difference keeps its
  // instruction (the difference may be negative).
  // CHECK-LABEL: func.func @bytes_minus
  // CHECK-DAG: %[[C:.*]] = arith.constant dense<1.155000e+03> : vector<4xf16>
  // CHECK: arith.xori
  // CHECK-COUNT-2: nvvm.prmt
  // CHECK: arith.subf %{{.*}}, %[[C]]
  // CHECK: arith.uitofp %{{.*}} : vector<4xi32> to vector<4xf16>
  func.func @bytes_minus(%b: vector<4xi8>) -> (vector<4xf16>, vector<4xf16>) {
    %three = arith.constant dense<3> : vector<4xi32>
    %e = arith.extsi %b : vector<4xi8> to vector<4xi32>
    %d = arith.subi %e, %three : vector<4xi32>
    %y = arith.sitofp %d : vector<4xi32> to vector<4xf16>
    %u = arith.extui %b : vector<4xi8> to vector<4xi32>
    %du = arith.subi %u, %three : vector<4xi32>
    %z = arith.uitofp %du : vector<4xi32> to vector<4xf16>
    return %y, %z : vector<4xf16>, vector<4xf16>
  }
  // Two's complement nibbles as TileLang's w4a8 example unpacks them: the
  // low nibble shifted to the byte's top (by 4, the high one by 0), read
  // as i8, shifted back arithmetically. They become the unsigned nibbles
  // by words (as @w4), each word xor 0x08080808 (x ^ 8: the nibble's sign
  // flipped), converted by words minus 1024 + 8: (x ^ 8) - 8 is the signed
  // value. No shift or conversion per element is left.
  // CHECK-LABEL: func.func @signed_nibbles
  // CHECK-DAG: %[[BASE:.*]] = arith.constant dense<1.032000e+03> : vector<8xf16>
  // CHECK-DAG: %[[FLIP:.*]] = arith.constant dense<134744072> : vector<2xi32>
  // CHECK-DAG: %[[S0:.*]] = arith.constant 20800 : i32
  // CHECK: arith.andi
  // CHECK: arith.shrui
  // CHECK: arith.andi
  // CHECK: nvvm.prmt <default> %[[S0]]
  // CHECK: arith.xori %{{.*}}, %[[FLIP]] : vector<2xi32>
  // CHECK: %[[F:.*]] = vector.bitcast %{{.*}} : vector<4xi32> to vector<8xf16>
  // CHECK: %[[R:.*]] = arith.subf %[[F]], %[[BASE]] : vector<8xf16>
  // CHECK-NOT: arith.sitofp
  // CHECK-NOT: arith.shrsi
  // CHECK: return %[[R]]
  func.func @signed_nibbles(%b: vector<4xi8>) -> vector<8xf16> {
    %shifts = arith.constant dense<[4, 0, 4, 0, 4, 0, 4, 0]> : vector<8xi32>
    %four = arith.constant dense<4> : vector<8xi8>
    %r = vector.shuffle %b, %b [0, 0, 1, 1, 2, 2, 3, 3] : vector<4xi8>, vector<4xi8>
    %e = arith.extui %r : vector<8xi8> to vector<8xi32>
    %s = arith.shli %e, %shifts : vector<8xi32>
    %t = arith.trunci %s : vector<8xi32> to vector<8xi8>
    %q = arith.shrsi %t, %four : vector<8xi8>
    %y = arith.sitofp %q : vector<8xi8> to vector<8xf16>
    return %y : vector<8xf16>
  }
  // fp4 e2m1 nibbles placed in halves' bits, ((q & 8) << 12) | ((q & 7) <<
  // 9), truncated to 16 bits: two lanes a word. A prmt spreads each pair of
  // bytes into a word's halves (0x4140: b0, 0, b1, 0), the masks hold their
  // constant in both halves (8 | 8 << 16 = 524296, 7 | 7 << 16 = 458759),
  // and no shift can carry into the high half (q & 8 has 4 bits, << 12: 16).
  // CHECK-LABEL: func.func @fp4_bits
  // CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : i32
  // CHECK-DAG: %[[S0:.*]] = arith.constant 16704 : i32
  // CHECK-DAG: %[[S1:.*]] = arith.constant 17218 : i32
  // CHECK-DAG: %[[EIGHT:.*]] = arith.constant dense<524296> : vector<4xi32>
  // CHECK-DAG: %[[SEVEN:.*]] = arith.constant dense<458759> : vector<4xi32>
  // CHECK: nvvm.prmt <default> %[[S0]], %{{.*}}, %[[ZERO]]
  // CHECK: nvvm.prmt <default> %[[S1]], %{{.*}}, %[[ZERO]]
  // CHECK: %[[W:.*]] = vector.from_elements {{.*}} : vector<4xi32>
  // CHECK: %[[A:.*]] = arith.andi %[[W]], %[[EIGHT]] : vector<4xi32>
  // CHECK: %[[SA:.*]] = arith.shli %[[A]], %{{.*}} : vector<4xi32>
  // CHECK: %[[B:.*]] = arith.andi %[[W]], %[[SEVEN]] : vector<4xi32>
  // CHECK: %[[SB:.*]] = arith.shli %[[B]], %{{.*}} : vector<4xi32>
  // CHECK: %[[O:.*]] = arith.ori %[[SA]], %[[SB]] : vector<4xi32>
  // CHECK: %[[H:.*]] = vector.bitcast %[[O]] : vector<4xi32> to vector<8xi16>
  // CHECK: arith.bitcast %[[H]] : vector<8xi16> to vector<8xf16>
  // CHECK-NOT: arith.trunci
  func.func @fp4_bits(%q: vector<8xi8>) -> vector<8xf16> {
    %eight = arith.constant dense<8> : vector<8xi32>
    %seven = arith.constant dense<7> : vector<8xi32>
    %twelve = arith.constant dense<12> : vector<8xi32>
    %nine = arith.constant dense<9> : vector<8xi32>
    %e = arith.extui %q : vector<8xi8> to vector<8xi32>
    %s = arith.andi %e, %eight : vector<8xi32>
    %ss = arith.shli %s, %twelve : vector<8xi32>
    %m = arith.andi %e, %seven : vector<8xi32>
    %ms = arith.shli %m, %nine : vector<8xi32>
    %bits = arith.ori %ss, %ms : vector<8xi32>
    %t = arith.trunci %bits : vector<8xi32> to vector<8xi16>
    %h = arith.bitcast %t : vector<8xi16> to vector<8xf16>
    return %h : vector<8xf16>
  }
  // A shift whose low half could carry into the high one is masked after
  // (bytes << 12 reach bit 19: bits 16..27 of the word cleared, ~0x0FFF0000
  // = -268369921).
  // CHECK-LABEL: func.func @carry_masked
  // CHECK: arith.shli
  // CHECK: arith.andi %{{.*}}, %{{.*}} : vector<2xi32>
  // CHECK: vector.bitcast %{{.*}} : vector<2xi32> to vector<4xi16>
  func.func @carry_masked(%q: vector<4xi8>) -> vector<4xi16> {
    %twelve = arith.constant dense<12> : vector<4xi32>
    %one = arith.constant dense<1> : vector<4xi32>
    %e = arith.extui %q : vector<4xi8> to vector<4xi32>
    %s = arith.shli %e, %twelve : vector<4xi32>
    %o = arith.ori %s, %one : vector<4xi32>
    %t = arith.trunci %o : vector<4xi32> to vector<4xi16>
    return %t : vector<4xi16>
  }
}
