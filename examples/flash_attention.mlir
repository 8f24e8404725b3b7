// FlashAttention forward (FlashAttention-2's online softmax), as TileLang's
// flagship example writes it: O = softmax(Q K^T / sqrt(d)) V over
// [batch * heads, seq, d] f16 tensors with a dynamic batch * heads and seq.
// One block takes 64 query rows of one head; a pipelined loop walks the keys
// in blocks of 64 (32 for d 128, to stay within the registers), keeping the row maxima `m` and row sums `l` of the
// exponentials in registers and rescaling the output accumulator as the
// maxima grow. Keys past the end of the sequence (and, for the causal
// variants, keys after the query) are masked by starting their scores at
// -inf; query rows past the end are never written.
//
//   S = Q_shared x K_shared^T           (f32 accumulator fragment)
//   m = max(m_prev, rowmax(S)); alpha = exp2((m_prev - m) * scale)
//   S = exp2(S * scale - m * scale); l = l * alpha + rowsum(S)
//                                       (one fma; exp2 fastmath<afn>:
//                                        approximate, no subnormals)
//   P = S as f16                        (tile.copy between fragments)
//   acc = acc * alpha + P x V_shared
//   O = acc / l
//
// Entry points: @flash_attention_d64, @flash_attention_d64_causal,
// @flash_attention_d128, @flash_attention_d128_causal.

func.func @flash_attention_d64(%Q: memref<?x?x64xf16>, %K: memref<?x?x64xf16>, %V: memref<?x?x64xf16>, %O: memref<?x?x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  // log2(e) / sqrt(64): scores are scaled once, exponentials are exp2.
  %scale = arith.constant 0.18033688011112042 : f32
  %bh = memref.dim %Q, %c0 : memref<?x?x64xf16>
  %seq = memref.dim %Q, %c1 : memref<?x?x64xf16>
  %q_blocks = arith.ceildivui %seq, %bm : index
  %kv_blocks = arith.ceildivui %seq, %bm : index
  tile.kernel grid(%bx, %b) in (%q_blocks, %bh) threads(128) {
    %q = memref.subview %Q[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %k = memref.subview %K[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %v = memref.subview %V[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %o = memref.subview %O[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<64x64xf32>
    %P = tile.fragment : !tile.fragment<64x64xf16>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    %m = tile.fragment : !tile.fragment<64xf32>
    %m_prev = tile.fragment : !tile.fragment<64xf32>
    %l = tile.fragment : !tile.fragment<64xf32>
    %rowsum = tile.fragment : !tile.fragment<64xf32>
    %alpha = tile.fragment : !tile.fragment<64xf32>
    %q0 = arith.muli %bx, %bm : index
    tile.copy %q[%q0, 0] -> %Qs : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.fill %l, %zero : !tile.fragment<64xf32>
    tile.fill %m, %ninf : !tile.fragment<64xf32>
    tile.pipelined %j = %c0 to %kv_blocks step %c1 stages(2) {
      %k0 = arith.muli %j, %bm : index
      tile.copy %k[%k0, 0] -> %Ks : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %v[%k0, 0] -> %Vs : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
      // Scores start at -inf for keys past the end, 0 elsewhere: columns
      // from seq - k0 on (at most 64: compared in i32).
      %keys = arith.subi %seq, %k0 : index
      %keys_in = arith.minui %keys, %bm : index
      %keys32 = arith.index_cast %keys_in : index to i32
      tile.parallel (%r, %c) in (64, 64) {
        %c32 = arith.index_cast %c : index to i32
        %past_end = arith.cmpi sge, %c32, %keys32 : i32
        %init = arith.select %past_end, %ninf, %zero : f32
        tile.store %init, %S[%r, %c] : !tile.fragment<64x64xf32>
      }
      tile.gemm %Qs, %Ks, %S transpose_b policy full_row : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
      // Online softmax: new row maxima, rescale factors, exponentials.
      tile.copy %m -> %m_prev : !tile.fragment<64xf32>, !tile.fragment<64xf32>
      tile.reduce max %S -> %m dim 1 {clear = false} : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %mp = tile.load %m_prev[%r] : !tile.fragment<64xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %d = arith.subf %mp, %mn : f32
        %ds = arith.mulf %d, %scale : f32
        %a = math.exp2 %ds : f32
        tile.store %a, %alpha[%r] : !tile.fragment<64xf32>
      }
      tile.parallel (%r, %c) in (64, 64) {
        %s = tile.load %S[%r, %c] : !tile.fragment<64x64xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %ms = arith.mulf %mn, %scale : f32
        %nms = arith.negf %ms : f32
        %ds = math.fma %s, %scale, %nms : f32
        %e = math.exp2 %ds fastmath<afn> : f32
        tile.store %e, %S[%r, %c] : !tile.fragment<64x64xf32>
      }
      tile.reduce sum %S -> %rowsum dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %lv = tile.load %l[%r] : !tile.fragment<64xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %rs = tile.load %rowsum[%r] : !tile.fragment<64xf32>
        %la = arith.mulf %lv, %a : f32
        %ln = arith.addf %la, %rs : f32
        tile.store %ln, %l[%r] : !tile.fragment<64xf32>
      }
      // P = S in f16 feeds the second gemm from registers.
      tile.copy %S -> %P : !tile.fragment<64x64xf32>, !tile.fragment<64x64xf16>
      tile.parallel (%r, %c) in (64, 64) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<64x64xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<64x64xf32>
      }
      tile.gemm %P, %Vs, %acc policy full_row : !tile.fragment<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    // 1 / l once per row, then a multiply per element (a division per
    // element is a reciprocal, its refinement and a slow-path check).
    tile.parallel (%r) in (64) {
      %lv = tile.load %l[%r] : !tile.fragment<64xf32>
      %inv = arith.divf %one, %lv : f32
      tile.store %inv, %l[%r] : !tile.fragment<64xf32>
    }
    tile.parallel (%r, %c) in (64, 64) {
      %x = tile.load %acc[%r, %c] : !tile.fragment<64x64xf32>
      %inv = tile.load %l[%r] : !tile.fragment<64xf32>
      %y = arith.mulf %x, %inv : f32
      tile.store %y, %acc[%r, %c] : !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %o[%q0, 0] : !tile.fragment<64x64xf32>, memref<?x64xf16, strided<[64, 1], offset: ?>>
  }
  return
}

func.func @flash_attention_d64_causal(%Q: memref<?x?x64xf16>, %K: memref<?x?x64xf16>, %V: memref<?x?x64xf16>, %O: memref<?x?x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  // log2(e) / sqrt(64): scores are scaled once, exponentials are exp2.
  %scale = arith.constant 0.18033688011112042 : f32
  %bh = memref.dim %Q, %c0 : memref<?x?x64xf16>
  %seq = memref.dim %Q, %c1 : memref<?x?x64xf16>
  %q_blocks = arith.ceildivui %seq, %bm : index
  %kv_blocks = arith.ceildivui %seq, %bm : index
  tile.kernel grid(%bx_launch, %b) in (%q_blocks, %bh) threads(128) {
    // The heaviest query blocks (the most key blocks) launch first, so
    // that the last blocks to run are light ones.
    %last_q = arith.subi %q_blocks, %c1 : index
    %bx = arith.subi %last_q, %bx_launch : index
    %q = memref.subview %Q[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %k = memref.subview %K[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %v = memref.subview %V[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %o = memref.subview %O[%b, 0, 0] [1, %seq, 64] [1, 1, 1] : memref<?x?x64xf16> to memref<?x64xf16, strided<[64, 1], offset: ?>>
    %Qs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<64x64xf32>
    %P = tile.fragment : !tile.fragment<64x64xf16>
    %acc = tile.fragment : !tile.fragment<64x64xf32>
    %m = tile.fragment : !tile.fragment<64xf32>
    %m_prev = tile.fragment : !tile.fragment<64xf32>
    %l = tile.fragment : !tile.fragment<64xf32>
    %rowsum = tile.fragment : !tile.fragment<64xf32>
    %alpha = tile.fragment : !tile.fragment<64xf32>
    %q0 = arith.muli %bx, %bm : index
    tile.copy %q[%q0, 0] -> %Qs : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x64xf32>
    tile.fill %l, %zero : !tile.fragment<64xf32>
    tile.fill %m, %ninf : !tile.fragment<64xf32>
    // Key blocks past the last query row of this block are all masked.
    %q_end = arith.addi %q0, %bm : index
    %kv_causal = arith.ceildivui %q_end, %bm : index
    %kv_end = arith.minui %kv_causal, %kv_blocks : index
    tile.pipelined %j = %c0 to %kv_end step %c1 stages(2) {
      %k0 = arith.muli %j, %bm : index
      tile.copy %k[%k0, 0] -> %Ks : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %v[%k0, 0] -> %Vs : memref<?x64xf16, strided<[64, 1], offset: ?>>, memref<64x64xf16, #gpu.address_space<workgroup>>
      // Scores start at -inf where the key is masked, 0 elsewhere: in row
      // r, columns from min(seq - k0, q0 + r + 1 - k0) on (past the end or
      // after the query; both at most 64, so compared in i32).
      %keys = arith.subi %seq, %k0 : index
      %keys_in = arith.minui %keys, %bm : index
      %keys32 = arith.index_cast %keys_in : index to i32
      %q_next = arith.addi %q0, %c1 : index
      %diag = arith.subi %q_next, %k0 : index
      %diag_in = arith.minsi %diag, %bm : index
      %diag32 = arith.index_cast %diag_in : index to i32
      tile.parallel (%r, %c) in (64, 64) {
        %r32 = arith.index_cast %r : index to i32
        %c32 = arith.index_cast %c : index to i32
        %causal = arith.addi %r32, %diag32 : i32
        %limit = arith.minsi %causal, %keys32 : i32
        %masked = arith.cmpi sge, %c32, %limit : i32
        %init = arith.select %masked, %ninf, %zero : f32
        tile.store %init, %S[%r, %c] : !tile.fragment<64x64xf32>
      }
      tile.gemm %Qs, %Ks, %S transpose_b policy full_row : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
      // Online softmax: new row maxima, rescale factors, exponentials.
      tile.copy %m -> %m_prev : !tile.fragment<64xf32>, !tile.fragment<64xf32>
      tile.reduce max %S -> %m dim 1 {clear = false} : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %mp = tile.load %m_prev[%r] : !tile.fragment<64xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %d = arith.subf %mp, %mn : f32
        %ds = arith.mulf %d, %scale : f32
        %a = math.exp2 %ds : f32
        tile.store %a, %alpha[%r] : !tile.fragment<64xf32>
      }
      tile.parallel (%r, %c) in (64, 64) {
        %s = tile.load %S[%r, %c] : !tile.fragment<64x64xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %ms = arith.mulf %mn, %scale : f32
        %nms = arith.negf %ms : f32
        %ds = math.fma %s, %scale, %nms : f32
        %e = math.exp2 %ds fastmath<afn> : f32
        tile.store %e, %S[%r, %c] : !tile.fragment<64x64xf32>
      }
      tile.reduce sum %S -> %rowsum dim 1 : !tile.fragment<64x64xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %lv = tile.load %l[%r] : !tile.fragment<64xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %rs = tile.load %rowsum[%r] : !tile.fragment<64xf32>
        %la = arith.mulf %lv, %a : f32
        %ln = arith.addf %la, %rs : f32
        tile.store %ln, %l[%r] : !tile.fragment<64xf32>
      }
      // P = S in f16 feeds the second gemm from registers.
      tile.copy %S -> %P : !tile.fragment<64x64xf32>, !tile.fragment<64x64xf16>
      tile.parallel (%r, %c) in (64, 64) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<64x64xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<64x64xf32>
      }
      tile.gemm %P, %Vs, %acc policy full_row : !tile.fragment<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x64xf32>
    }
    // 1 / l once per row, then a multiply per element (a division per
    // element is a reciprocal, its refinement and a slow-path check).
    tile.parallel (%r) in (64) {
      %lv = tile.load %l[%r] : !tile.fragment<64xf32>
      %inv = arith.divf %one, %lv : f32
      tile.store %inv, %l[%r] : !tile.fragment<64xf32>
    }
    tile.parallel (%r, %c) in (64, 64) {
      %x = tile.load %acc[%r, %c] : !tile.fragment<64x64xf32>
      %inv = tile.load %l[%r] : !tile.fragment<64xf32>
      %y = arith.mulf %x, %inv : f32
      tile.store %y, %acc[%r, %c] : !tile.fragment<64x64xf32>
    }
    tile.copy %acc -> %o[%q0, 0] : !tile.fragment<64x64xf32>, memref<?x64xf16, strided<[64, 1], offset: ?>>
  }
  return
}

func.func @flash_attention_d128(%Q: memref<?x?x128xf16>, %K: memref<?x?x128xf16>, %V: memref<?x?x128xf16>, %O: memref<?x?x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %bn = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  // log2(e) / sqrt(128): scores are scaled once, exponentials are exp2.
  %scale = arith.constant 0.12751743082459868 : f32
  %bh = memref.dim %Q, %c0 : memref<?x?x128xf16>
  %seq = memref.dim %Q, %c1 : memref<?x?x128xf16>
  %q_blocks = arith.ceildivui %seq, %bm : index
  %kv_blocks = arith.ceildivui %seq, %bn : index
  tile.kernel grid(%bx, %b) in (%q_blocks, %bh) threads(128) {
    %q = memref.subview %Q[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %k = memref.subview %K[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %v = memref.subview %V[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %o = memref.subview %O[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %Qs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<64x32xf32>
    %P = tile.fragment : !tile.fragment<64x32xf16>
    %acc = tile.fragment : !tile.fragment<64x128xf32>
    %m = tile.fragment : !tile.fragment<64xf32>
    %m_prev = tile.fragment : !tile.fragment<64xf32>
    %l = tile.fragment : !tile.fragment<64xf32>
    %rowsum = tile.fragment : !tile.fragment<64xf32>
    %alpha = tile.fragment : !tile.fragment<64xf32>
    %q0 = arith.muli %bx, %bm : index
    tile.copy %q[%q0, 0] -> %Qs : memref<?x128xf16, strided<[128, 1], offset: ?>>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x128xf32>
    tile.fill %l, %zero : !tile.fragment<64xf32>
    tile.fill %m, %ninf : !tile.fragment<64xf32>
    tile.pipelined %j = %c0 to %kv_blocks step %c1 stages(2) {
      %k0 = arith.muli %j, %bn : index
      tile.copy %k[%k0, 0] -> %Ks : memref<?x128xf16, strided<[128, 1], offset: ?>>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.copy %v[%k0, 0] -> %Vs : memref<?x128xf16, strided<[128, 1], offset: ?>>, memref<32x128xf16, #gpu.address_space<workgroup>>
      // Scores start at -inf for keys past the end, 0 elsewhere: columns
      // from seq - k0 on (at most 32: compared in i32).
      %keys = arith.subi %seq, %k0 : index
      %keys_in = arith.minui %keys, %bn : index
      %keys32 = arith.index_cast %keys_in : index to i32
      tile.parallel (%r, %c) in (64, 32) {
        %c32 = arith.index_cast %c : index to i32
        %past_end = arith.cmpi sge, %c32, %keys32 : i32
        %init = arith.select %past_end, %ninf, %zero : f32
        tile.store %init, %S[%r, %c] : !tile.fragment<64x32xf32>
      }
      tile.gemm %Qs, %Ks, %S transpose_b policy full_row : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x32xf32>
      // Online softmax: new row maxima, rescale factors, exponentials.
      tile.copy %m -> %m_prev : !tile.fragment<64xf32>, !tile.fragment<64xf32>
      tile.reduce max %S -> %m dim 1 {clear = false} : !tile.fragment<64x32xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %mp = tile.load %m_prev[%r] : !tile.fragment<64xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %d = arith.subf %mp, %mn : f32
        %ds = arith.mulf %d, %scale : f32
        %a = math.exp2 %ds : f32
        tile.store %a, %alpha[%r] : !tile.fragment<64xf32>
      }
      tile.parallel (%r, %c) in (64, 32) {
        %s = tile.load %S[%r, %c] : !tile.fragment<64x32xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %ms = arith.mulf %mn, %scale : f32
        %nms = arith.negf %ms : f32
        %ds = math.fma %s, %scale, %nms : f32
        %e = math.exp2 %ds fastmath<afn> : f32
        tile.store %e, %S[%r, %c] : !tile.fragment<64x32xf32>
      }
      tile.reduce sum %S -> %rowsum dim 1 : !tile.fragment<64x32xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %lv = tile.load %l[%r] : !tile.fragment<64xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %rs = tile.load %rowsum[%r] : !tile.fragment<64xf32>
        %la = arith.mulf %lv, %a : f32
        %ln = arith.addf %la, %rs : f32
        tile.store %ln, %l[%r] : !tile.fragment<64xf32>
      }
      // P = S in f16 feeds the second gemm from registers.
      tile.copy %S -> %P : !tile.fragment<64x32xf32>, !tile.fragment<64x32xf16>
      tile.parallel (%r, %c) in (64, 128) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<64x128xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<64x128xf32>
      }
      tile.gemm %P, %Vs, %acc policy full_row : !tile.fragment<64x32xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x128xf32>
    }
    // 1 / l once per row, then a multiply per element (a division per
    // element is a reciprocal, its refinement and a slow-path check).
    tile.parallel (%r) in (64) {
      %lv = tile.load %l[%r] : !tile.fragment<64xf32>
      %inv = arith.divf %one, %lv : f32
      tile.store %inv, %l[%r] : !tile.fragment<64xf32>
    }
    tile.parallel (%r, %c) in (64, 128) {
      %x = tile.load %acc[%r, %c] : !tile.fragment<64x128xf32>
      %inv = tile.load %l[%r] : !tile.fragment<64xf32>
      %y = arith.mulf %x, %inv : f32
      tile.store %y, %acc[%r, %c] : !tile.fragment<64x128xf32>
    }
    tile.copy %acc -> %o[%q0, 0] : !tile.fragment<64x128xf32>, memref<?x128xf16, strided<[128, 1], offset: ?>>
  }
  return
}

func.func @flash_attention_d128_causal(%Q: memref<?x?x128xf16>, %K: memref<?x?x128xf16>, %V: memref<?x?x128xf16>, %O: memref<?x?x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant 64 : index
  %bn = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  // log2(e) / sqrt(128): scores are scaled once, exponentials are exp2.
  %scale = arith.constant 0.12751743082459868 : f32
  %bh = memref.dim %Q, %c0 : memref<?x?x128xf16>
  %seq = memref.dim %Q, %c1 : memref<?x?x128xf16>
  %q_blocks = arith.ceildivui %seq, %bm : index
  %kv_blocks = arith.ceildivui %seq, %bn : index
  tile.kernel grid(%bx_launch, %b) in (%q_blocks, %bh) threads(128) {
    // The heaviest query blocks (the most key blocks) launch first, so
    // that the last blocks to run are light ones.
    %last_q = arith.subi %q_blocks, %c1 : index
    %bx = arith.subi %last_q, %bx_launch : index
    %q = memref.subview %Q[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %k = memref.subview %K[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %v = memref.subview %V[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %o = memref.subview %O[%b, 0, 0] [1, %seq, 128] [1, 1, 1] : memref<?x?x128xf16> to memref<?x128xf16, strided<[128, 1], offset: ?>>
    %Qs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Ks = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %Vs = tile.alloc_shared : memref<32x128xf16, #gpu.address_space<workgroup>>
    %S = tile.fragment : !tile.fragment<64x32xf32>
    %P = tile.fragment : !tile.fragment<64x32xf16>
    %acc = tile.fragment : !tile.fragment<64x128xf32>
    %m = tile.fragment : !tile.fragment<64xf32>
    %m_prev = tile.fragment : !tile.fragment<64xf32>
    %l = tile.fragment : !tile.fragment<64xf32>
    %rowsum = tile.fragment : !tile.fragment<64xf32>
    %alpha = tile.fragment : !tile.fragment<64xf32>
    %q0 = arith.muli %bx, %bm : index
    tile.copy %q[%q0, 0] -> %Qs : memref<?x128xf16, strided<[128, 1], offset: ?>>, memref<64x128xf16, #gpu.address_space<workgroup>>
    tile.fill %acc, %zero : !tile.fragment<64x128xf32>
    tile.fill %l, %zero : !tile.fragment<64xf32>
    tile.fill %m, %ninf : !tile.fragment<64xf32>
    // Key blocks past the last query row of this block are all masked.
    %q_end = arith.addi %q0, %bm : index
    %kv_causal = arith.ceildivui %q_end, %bn : index
    %kv_end = arith.minui %kv_causal, %kv_blocks : index
    tile.pipelined %j = %c0 to %kv_end step %c1 stages(2) {
      %k0 = arith.muli %j, %bn : index
      tile.copy %k[%k0, 0] -> %Ks : memref<?x128xf16, strided<[128, 1], offset: ?>>, memref<32x128xf16, #gpu.address_space<workgroup>>
      tile.copy %v[%k0, 0] -> %Vs : memref<?x128xf16, strided<[128, 1], offset: ?>>, memref<32x128xf16, #gpu.address_space<workgroup>>
      // Scores start at -inf where the key is masked, 0 elsewhere: in row
      // r, columns from min(seq - k0, q0 + r + 1 - k0) on (past the end or
      // after the query; both at most 32, so compared in i32).
      %keys = arith.subi %seq, %k0 : index
      %keys_in = arith.minui %keys, %bn : index
      %keys32 = arith.index_cast %keys_in : index to i32
      %q_next = arith.addi %q0, %c1 : index
      %diag = arith.subi %q_next, %k0 : index
      %diag_in = arith.minsi %diag, %bn : index
      %diag32 = arith.index_cast %diag_in : index to i32
      tile.parallel (%r, %c) in (64, 32) {
        %r32 = arith.index_cast %r : index to i32
        %c32 = arith.index_cast %c : index to i32
        %causal = arith.addi %r32, %diag32 : i32
        %limit = arith.minsi %causal, %keys32 : i32
        %masked = arith.cmpi sge, %c32, %limit : i32
        %init = arith.select %masked, %ninf, %zero : f32
        tile.store %init, %S[%r, %c] : !tile.fragment<64x32xf32>
      }
      tile.gemm %Qs, %Ks, %S transpose_b policy full_row : memref<64x128xf16, #gpu.address_space<workgroup>>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x32xf32>
      // Online softmax: new row maxima, rescale factors, exponentials.
      tile.copy %m -> %m_prev : !tile.fragment<64xf32>, !tile.fragment<64xf32>
      tile.reduce max %S -> %m dim 1 {clear = false} : !tile.fragment<64x32xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %mp = tile.load %m_prev[%r] : !tile.fragment<64xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %d = arith.subf %mp, %mn : f32
        %ds = arith.mulf %d, %scale : f32
        %a = math.exp2 %ds : f32
        tile.store %a, %alpha[%r] : !tile.fragment<64xf32>
      }
      tile.parallel (%r, %c) in (64, 32) {
        %s = tile.load %S[%r, %c] : !tile.fragment<64x32xf32>
        %mn = tile.load %m[%r] : !tile.fragment<64xf32>
        %ms = arith.mulf %mn, %scale : f32
        %nms = arith.negf %ms : f32
        %ds = math.fma %s, %scale, %nms : f32
        %e = math.exp2 %ds fastmath<afn> : f32
        tile.store %e, %S[%r, %c] : !tile.fragment<64x32xf32>
      }
      tile.reduce sum %S -> %rowsum dim 1 : !tile.fragment<64x32xf32>, !tile.fragment<64xf32>
      tile.parallel (%r) in (64) {
        %lv = tile.load %l[%r] : !tile.fragment<64xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %rs = tile.load %rowsum[%r] : !tile.fragment<64xf32>
        %la = arith.mulf %lv, %a : f32
        %ln = arith.addf %la, %rs : f32
        tile.store %ln, %l[%r] : !tile.fragment<64xf32>
      }
      // P = S in f16 feeds the second gemm from registers.
      tile.copy %S -> %P : !tile.fragment<64x32xf32>, !tile.fragment<64x32xf16>
      tile.parallel (%r, %c) in (64, 128) {
        %x = tile.load %acc[%r, %c] : !tile.fragment<64x128xf32>
        %a = tile.load %alpha[%r] : !tile.fragment<64xf32>
        %y = arith.mulf %x, %a : f32
        tile.store %y, %acc[%r, %c] : !tile.fragment<64x128xf32>
      }
      tile.gemm %P, %Vs, %acc policy full_row : !tile.fragment<64x32xf16>, memref<32x128xf16, #gpu.address_space<workgroup>>, !tile.fragment<64x128xf32>
    }
    // 1 / l once per row, then a multiply per element (a division per
    // element is a reciprocal, its refinement and a slow-path check).
    tile.parallel (%r) in (64) {
      %lv = tile.load %l[%r] : !tile.fragment<64xf32>
      %inv = arith.divf %one, %lv : f32
      tile.store %inv, %l[%r] : !tile.fragment<64xf32>
    }
    tile.parallel (%r, %c) in (64, 128) {
      %x = tile.load %acc[%r, %c] : !tile.fragment<64x128xf32>
      %inv = tile.load %l[%r] : !tile.fragment<64xf32>
      %y = arith.mulf %x, %inv : f32
      tile.store %y, %acc[%r, %c] : !tile.fragment<64x128xf32>
    }
    tile.copy %acc -> %o[%q0, 0] : !tile.fragment<64x128xf32>, memref<?x128xf16, strided<[128, 1], offset: ?>>
  }
  return
}
