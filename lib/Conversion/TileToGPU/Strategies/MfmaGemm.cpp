//===- MfmaGemm.cpp - tile.gemm with MFMA (CDNA) --------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Each 64-lane wave repeats its MFMA over its share of C (the GemmPlan's
// tiling): v_mfma_f32_16x16x16{f16,bf16}, for i8 -> i32
// v_mfma_i32_16x16x16i8 (CDNA2) / v_mfma_i32_16x16x32_i8 (CDNA3), and for
// fp8 -> f32 v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}: on gfx942 with the FNUZ
// types (A and B each f8E4M3FNUZ, fp8, or f8E5M2FNUZ, bf8), on gfx950 with
// OCP's (f8E4M3FN, fp8, or f8E5M2, bf8). Per K step, A and B are gathered
// into four (eight) elements per lane (from registers, or from LDS through
// the operand's layout), the four accumulator slots of the lane's tile go in
// as a vector<4xf32|i32>, and `amdgpu.mfma` accumulates. The operand vectors
// keep their element type (vector<8xf8E4M3FN>, ...): `amdgpu.mfma` picks the
// instruction from the types and the chipset, and its lowering packs eight
// 8-bit elements into the i64 the intrinsic takes.
//
// With both operands in LDS, K steps go in pairs that share one order of
// K: lane group g (lanes 16g .. 16g + 15) takes K 2eg .. 2eg + 2e - 1 of the
// pair (e = elements per lane and step), the first e for the first step and
// the rest for the second. The sum over the pair's K is the same, and an
// operand stored K-inner is read 16 bytes per lane (ds_read_b128) instead
// of 8: half the reads, and under the operands' swizzles (16-byte chunks
// XORed by the row) the 8 lanes that LDS serves together read 8 rows'
// chunks in distinct banks, where the 16 lanes of an 8-byte read of 16 rows
// met 2 to a bank (32 banks of 4 bytes).
//
//===----------------------------------------------------------------------===//

#include "GemmStrategies.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

class MfmaLowering {
public:
  MfmaLowering(const KernelContext &k, OpBuilder &b, GemmOp op,
               const GemmPlan &plan, const MmaAtom &atom,
               const GemmOperand &a, const GemmOperand &bOperand,
               const FragmentStorage &c)
      : k(k), b(b), loc(op.getLoc()), plan(plan), atom(atom), a(a),
        bOperand(bOperand), c(c) {}

  void run() {
    Value lanes = k.constant(b, loc, plan.warpSize);
    Value wave = arith::DivUIOp::create(b, loc, k.threadId, lanes);
    lane = arith::RemUIOp::create(b, loc, k.threadId, lanes);
    Value wavesN = k.constant(b, loc, plan.warpsN);
    Value waveRow = arith::DivUIOp::create(b, loc, wave, wavesN);
    rowBase = arith::MulIOp::create(
        b, loc, waveRow, k.constant(b, loc, plan.repeatsM * plan.atomM));
    Value waveCol = arith::RemUIOp::create(b, loc, wave, wavesN);
    colBase = arith::MulIOp::create(
        b, loc, waveCol, k.constant(b, loc, plan.repeatsN * plan.atomN));

    bool paired = a.shared && bOperand.shared && plan.repeatsK % 2 == 0;
    // The operand's registers for step ki (and ki + 1 when paired), its
    // atom's corner at (row0, col0) and its first fragment slot `slot`.
    auto operand = [&](const GemmOperand &x, const Layout &atomLayout,
                       int64_t slot, Value row0, Value col0, bool isA,
                       SmallVector<Value>(&regs)[2]) {
      if (paired)
        gatherPair(x, atomLayout, row0, col0, isA, regs);
      else
        regs[0].push_back(gather(x, atomLayout, slot, row0, col0, isA));
    };
    for (int64_t ki = 0; ki < plan.repeatsK; ki += paired ? 2 : 1) {
      SmallVector<Value> aRegs[2], bRegs[2];
      Value k0 = k.constant(b, loc, ki * plan.atomK);
      for (int64_t mi = 0; mi < plan.repeatsM; ++mi)
        operand(a, atom.a, (mi * plan.repeatsK + ki) * getSlotExtent(atom.a),
                arith::AddIOp::create(b, loc, rowBase,
                                      k.constant(b, loc, mi * plan.atomM)),
                k0, /*isA=*/true, aRegs);
      for (int64_t ni = 0; ni < plan.repeatsN; ++ni)
        operand(bOperand, atom.b,
                (ki * plan.repeatsN + ni) * getSlotExtent(atom.b), k0,
                arith::AddIOp::create(b, loc, colBase,
                                      k.constant(b, loc, ni * plan.atomN)),
                /*isA=*/false, bRegs);
      multiply(aRegs[0], bRegs[0]);
      if (paired)
        multiply(aRegs[1], bRegs[1]);
    }
  }

private:
  /// One K step: C += A x B over the wave's tiles.
  void multiply(ArrayRef<Value> aRegs, ArrayRef<Value> bRegs) {
    auto accType = VectorType::get({4}, c.type.getElementType());
    for (int64_t mi = 0; mi < plan.repeatsM; ++mi)
      for (int64_t ni = 0; ni < plan.repeatsN; ++ni) {
        int64_t base = (mi * plan.repeatsN + ni) * 4;
        SmallVector<Value> acc;
        for (int64_t j = 0; j < 4; ++j)
          acc.push_back(c.load(b, loc, base + j));
        Value accVec = vector::FromElementsOp::create(b, loc, accType, acc);
        Value d = amdgpu::MFMAOp::create(
            b, loc, accType, plan.atomM, plan.atomN, plan.atomK,
            /*blocks=*/1, aRegs[mi], bRegs[ni], accVec);
        for (int64_t j = 0; j < 4; ++j)
          c.store(b, loc, base + j,
                  vector::ExtractOp::create(b, loc, d, ArrayRef<int64_t>{j}));
      }
  }

  /// The lane's elements of an operand in LDS for a pair of K steps whose
  /// atoms' top-left corner is at (row0, col0) (K is col0 for A, row0 for
  /// B): the atom's K index of the lane's first element, doubled, is where
  /// its 2e elements start; the first e go to `regs[0]`, the rest to
  /// `regs[1]`. One vector load where they are contiguous in LDS.
  void gatherPair(const GemmOperand &x, const Layout &atomLayout, Value row0,
                  Value col0, bool isA, SmallVector<Value> (&regs)[2]) {
    int64_t e = getSlotExtent(atomLayout);
    SmallVector<Value> rc = k.fragmentIndex(b, loc, atomLayout, 0, lane);
    Value two = k.constant(b, loc, 2);
    Value row = arith::AddIOp::create(b, loc, row0, rc[0]);
    Value col = arith::AddIOp::create(b, loc, col0, rc[1]);
    Value &kIndex = isA ? col : row;
    Value kAtom = isA ? rc[1] : rc[0];
    kIndex = arith::AddIOp::create(b, loc, isA ? col0 : row0,
                                   arith::MulIOp::create(b, loc, kAtom, two));
    auto halfType = VectorType::get({e}, x.elementType);
    if (isKContiguous(x, isA, 2 * e)) {
      SmallVector<Value> index = x.transposed ? SmallVector<Value>{col, row}
                                              : SmallVector<Value>{row, col};
      Value both = vector::LoadOp::create(
          b, loc, VectorType::get({2 * e}, x.elementType), x.shared->memory,
          k.sharedOffset(b, loc, *x.shared, index));
      for (int64_t h = 0; h < 2; ++h) {
        SmallVector<int64_t> half;
        for (int64_t j = 0; j < e; ++j)
          half.push_back(h * e + j);
        regs[h].push_back(
            vector::ShuffleOp::create(b, loc, both, both, half));
      }
      return;
    }
    for (int64_t h = 0; h < 2; ++h) {
      SmallVector<Value> elements;
      for (int64_t j = 0; j < e; ++j) {
        Value step = k.constant(b, loc, h * e + j);
        Value r = isA ? row : arith::AddIOp::create(b, loc, row, step);
        Value cc = isA ? arith::AddIOp::create(b, loc, col, step) : col;
        elements.push_back(readSharedOperand(k, b, loc, x, r, cc));
      }
      regs[h].push_back(
          vector::FromElementsOp::create(b, loc, halfType, elements));
    }
  }

  /// Whether the lane's elements of `x` (consecutive along K) are
  /// consecutive in LDS: the layout keeps runs of that many elements of
  /// the operand's K dim (dim 1 of A as M x K and of B as N x K, else dim
  /// 0) together, so one ds_read fetches them.
  static bool isKContiguous(const GemmOperand &x, bool isA, int64_t run) {
    if (!x.shared)
      return false;
    unsigned kDim = isA != x.transposed ? 1 : 0;
    return succeeded(x.shared->layout.rescale(kDim, run));
  }

  /// The lane's four elements of an atom operand whose top-left corner is
  /// at (row0, col0): from the fragment's slots starting at `slot`, or
  /// from LDS at atom^-1(lane, j), in one vector load where they are
  /// contiguous there.
  Value gather(const GemmOperand &x, const Layout &atomLayout, int64_t slot,
               Value row0, Value col0, bool isA) {
    auto vectorType = VectorType::get({getSlotExtent(atomLayout)},
                                      x.elementType);
    if (isKContiguous(x, isA, vectorType.getNumElements())) {
      SmallVector<Value> rc = k.fragmentIndex(b, loc, atomLayout, 0, lane);
      Value row = arith::AddIOp::create(b, loc, row0, rc[0]);
      Value col = arith::AddIOp::create(b, loc, col0, rc[1]);
      SmallVector<Value> index = x.transposed ? SmallVector<Value>{col, row}
                                              : SmallVector<Value>{row, col};
      return vector::LoadOp::create(b, loc, vectorType, x.shared->memory,
                                    k.sharedOffset(b, loc, *x.shared, index));
    }
    SmallVector<Value> elements;
    for (int64_t j = 0, e = getSlotExtent(atomLayout); j < e; ++j) {
      if (x.fragment) {
        elements.push_back(x.fragment->load(b, loc, slot + j));
        continue;
      }
      SmallVector<Value> rc = k.fragmentIndex(b, loc, atomLayout, j, lane);
      Value row = arith::AddIOp::create(b, loc, row0, rc[0]);
      Value col = arith::AddIOp::create(b, loc, col0, rc[1]);
      elements.push_back(readSharedOperand(k, b, loc, x, row, col));
    }
    return vector::FromElementsOp::create(b, loc, vectorType, elements);
  }


  const KernelContext &k;
  OpBuilder &b;
  Location loc;
  const GemmPlan &plan;
  const MmaAtom &atom;
  const GemmOperand &a, &bOperand;
  const FragmentStorage &c;
  Value lane, rowBase, colBase;
};

} // namespace

LogicalResult mlir::tile::gpu_lowering::emitMfmaGemm(
    const KernelContext &k, OpBuilder &b, GemmOp op, const GemmPlan &plan,
    const GemmOperand &a, const GemmOperand &bOperand,
    const FragmentStorage &c) {
  MmaAtom atom =
      plan.atomK == 32 ? getMfma16x16x32Atom() : getMfma16x16x16Atom();
  MfmaLowering(k, b, op, plan, atom, a, bOperand, c).run();
  return success();
}
