//===- Gemm.cpp - tile.gemm on the GPU ------------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.gemm follows its GemmPlan (the one layout inference used): with
// mma.sync, each warp repeats the m16n8kK instruction over its share of C,
// operands coming from registers or shared memory (ldmatrix for 16-bit
// types); without tensor cores, each thread accumulates its block of C with
// fused multiply-adds.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "tile/Dialect/Tile/Transforms/GemmPlan.h"
#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

Value slotValue(OpBuilder &b, Location loc, const FragmentStorage &f,
                int64_t slot) {
  return memref::LoadOp::create(
      b, loc, f.slots, ValueRange{arith::ConstantIndexOp::create(b, loc, slot)});
}

void setSlot(OpBuilder &b, Location loc, const FragmentStorage &f, int64_t slot,
             Value v) {
  memref::StoreOp::create(
      b, loc, v, f.slots,
      ValueRange{arith::ConstantIndexOp::create(b, loc, slot)});
}

/// One gemm operand (A or B) and how to read it.
struct Operand {
  Value value;
  const FragmentStorage *fragment = nullptr;
  const SharedStorage *shared = nullptr;
  bool transposed = false;
  Type elementType;
};

/// Reads element (row, col) of op(X) from shared memory.
Value readShared(KernelLowering &k, OpBuilder &b, Location loc,
                 const Operand &x, Value row, Value col) {
  SmallVector<Value> index = x.transposed ? SmallVector<Value>{col, row}
                                          : SmallVector<Value>{row, col};
  return memref::LoadOp::create(b, loc, x.shared->memory,
                                k.sharedOffset(b, loc, *x.shared, index));
}

class MmaLowering {
public:
  MmaLowering(KernelLowering &k, GemmOp op, const GemmPlan &plan,
              const MmaAtom &atom, Operand a, Operand b,
              const FragmentStorage &c)
      : k(k), op(op), plan(plan), atom(atom), a(a), b(b), c(c) {}

  LogicalResult run() {
    OpBuilder &builder = k.rewriter;
    Location loc = op.getLoc();
    Value lanes = k.constant(builder, loc, plan.warpSize);
    Value warp = arith::DivUIOp::create(builder, loc, k.threadId, lanes);
    lane = arith::RemUIOp::create(builder, loc, k.threadId, lanes);
    Value warpsN = k.constant(builder, loc, plan.warpsN);
    Value warpRow = arith::DivUIOp::create(builder, loc, warp, warpsN);
    Value warpCol = arith::RemUIOp::create(builder, loc, warp, warpsN);
    rowBase = arith::MulIOp::create(
        builder, loc, warpRow,
        k.constant(builder, loc, plan.repeatsM * plan.atomM));
    colBase = arith::MulIOp::create(
        builder, loc, warpCol,
        k.constant(builder, loc, plan.repeatsN * plan.atomN));

    for (int64_t ki = 0; ki < plan.repeatsK; ++ki) {
      SmallVector<Value> aRegs, bRegs;
      for (int64_t mi = 0; mi < plan.repeatsM; ++mi)
        aRegs.push_back(loadA(builder, loc, mi, ki));
      for (int64_t ni = 0; ni < plan.repeatsN; ++ni)
        bRegs.push_back(loadB(builder, loc, ki, ni));
      for (int64_t mi = 0; mi < plan.repeatsM; ++mi) {
        for (int64_t ni = 0; ni < plan.repeatsN; ++ni) {
          int64_t base = (mi * plan.repeatsN + ni) * 4;
          Type cType = c.type.getElementType();
          SmallVector<Value> acc;
          for (int64_t j = 0; j < 4; ++j)
            acc.push_back(slotValue(builder, loc, c, base + j));
          if (a.elementType.isBF16()) {
            SmallVector<Value> d =
                bf16Mma(builder, loc, aRegs[mi], bRegs[ni], acc);
            for (int64_t j = 0; j < 4; ++j)
              setSlot(builder, loc, c, base + j, d[j]);
            continue;
          }
          Value cVec = vector::FromElementsOp::create(
              builder, loc, VectorType::get({2, 2}, cType), acc);
          Value d = nvgpu::MmaSyncOp::create(
              builder, loc, aRegs[mi], bRegs[ni], cVec,
              ArrayRef<int64_t>{plan.atomM, plan.atomN, plan.atomK},
              /*tf32Enabled=*/a.elementType.isF32());
          for (int64_t j = 0; j < 4; ++j)
            setSlot(builder, loc, c, base + j,
                    vector::ExtractOp::create(builder, loc, d,
                                              ArrayRef<int64_t>{j / 2, j % 2}));
        }
      }
    }
    return success();
  }

private:
  /// m16n8k16 bf16 -> f32 as nvvm.mma.sync (nvgpu.mma.sync's lowering
  /// does not deduce bf16 PTX types): A and B as 32-bit registers of two
  /// elements, C and D as four f32.
  SmallVector<Value> bf16Mma(OpBuilder &builder, Location loc, Value aVec,
                             Value bVec, ArrayRef<Value> acc) {
    auto registers = [&](Value v) {
      auto type = cast<VectorType>(v.getType());
      auto i32x1 = VectorType::get({1}, builder.getI32Type());
      SmallVector<Value> result;
      for (int64_t r = 0; r < type.getDimSize(0); ++r) {
        Value pair = vector::ExtractOp::create(builder, loc, v,
                                               ArrayRef<int64_t>{r});
        Value word = vector::BitCastOp::create(builder, loc, i32x1, pair);
        result.push_back(vector::ExtractOp::create(builder, loc, word,
                                                   ArrayRef<int64_t>{0}));
      }
      return result;
    };
    Type f32 = builder.getF32Type();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        builder.getContext(), {f32, f32, f32, f32});
    Value d = NVVM::MmaOp::create(
        builder, loc, resultType, registers(aVec), registers(bVec), acc,
        ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> result;
    for (int64_t j = 0; j < 4; ++j)
      result.push_back(LLVM::ExtractValueOp::create(builder, loc, d, j));
    return result;
  }

  /// Registers of one operand tile: vector<4xN> (A) or vector<2xN> (B).
  Value pack(OpBuilder &builder, Location loc, ArrayRef<Value> elements,
             int64_t registers, Type type) {
    int64_t perRegister = elements.size() / registers;
    return vector::FromElementsOp::create(
        builder, loc, VectorType::get({registers, perRegister}, type),
        elements);
  }

  /// The elements of an atom operand from shared memory: atom slot j of this
  /// lane is at (row0 + r, col0 + c) where (r, c) = atom^-1(lane, j).
  SmallVector<Value> gatherShared(OpBuilder &builder, Location loc,
                                  const Operand &x, const Layout &atomLayout,
                                  Value row0, Value col0) {
    SmallVector<Value> elements;
    for (int64_t j = 0, e = getSlotExtent(atomLayout); j < e; ++j) {
      SmallVector<Value> rc = k.fragmentIndex(builder, loc, atomLayout, j, lane);
      Value row = arith::AddIOp::create(builder, loc, row0, rc[0]);
      Value col = arith::AddIOp::create(builder, loc, col0, rc[1]);
      elements.push_back(readShared(k, builder, loc, x, row, col));
    }
    return elements;
  }

  /// Whether ldmatrix can read `x`: 16-bit elements whose shared layout
  /// keeps runs of 8 (16 bytes) contiguous along the stored rows.
  static bool canUseLdMatrix(const Operand &x, const GemmPlan &plan) {
    if (!x.shared || x.elementType.getIntOrFloatBitWidth() != 16 ||
        plan.atomK != 16)
      return false;
    return succeeded(x.shared->layout.rescale(1, 8));
  }

  /// ldmatrix of `tiles` 8x8 matrices; lane l supplies the address of row
  /// l % 8 of matrix l / 8 at stored (row, col).
  Value ldmatrix(OpBuilder &builder, Location loc, const Operand &x,
                 int64_t tiles, bool transpose, Value row, Value col) {
    Value offset = k.sharedOffset(builder, loc, *x.shared, {row, col});
    auto type = VectorType::get({tiles, 2}, x.elementType);
    return nvgpu::LdMatrixOp::create(builder, loc, type, x.shared->memory,
                                     ValueRange{offset}, transpose, tiles);
  }

  Value laneDiv(OpBuilder &builder, Location loc, int64_t d) {
    return arith::DivUIOp::create(builder, loc, lane, k.constant(builder, loc, d));
  }
  Value laneRem(OpBuilder &builder, Location loc, int64_t d) {
    return arith::RemUIOp::create(builder, loc, lane, k.constant(builder, loc, d));
  }
  Value add(OpBuilder &builder, Location loc, Value x, Value y) {
    return arith::AddIOp::create(builder, loc, x, y);
  }
  Value mul(OpBuilder &builder, Location loc, Value x, int64_t c) {
    return arith::MulIOp::create(builder, loc, x, k.constant(builder, loc, c));
  }

  Value loadA(OpBuilder &builder, Location loc, int64_t mi, int64_t ki) {
    int64_t slots = getSlotExtent(atom.a);
    SmallVector<Value> elements;
    if (canUseLdMatrix(a, plan)) {
      Value m0 = add(builder, loc, rowBase,
                     k.constant(builder, loc, mi * plan.atomM));
      Value k0 = k.constant(builder, loc, ki * plan.atomK);
      Value matrix = laneDiv(builder, loc, 8), r = laneRem(builder, loc, 8);
      if (!a.transposed) {
        // Matrices (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), ...:
        // lane l reads row l % 16 at column (l / 16) * 8.
        Value row = add(builder, loc, m0, laneRem(builder, loc, 16));
        Value col = add(builder, loc, k0, mul(builder, loc, laneDiv(builder, loc, 16), 8));
        return ldmatrix(builder, loc, a, 4, /*transpose=*/false, row, col);
      }
      // Stored K x M: transposed 8x8 reads; matrix q holds m-half q % 2 and
      // k-half q / 2.
      Value row = add(builder, loc, k0,
                      add(builder, loc,
                          mul(builder, loc,
                              arith::DivUIOp::create(builder, loc, matrix,
                                                     k.constant(builder, loc, 2)),
                              8),
                          r));
      Value col = add(builder, loc, m0,
                      mul(builder, loc,
                          arith::RemUIOp::create(builder, loc, matrix,
                                                 k.constant(builder, loc, 2)),
                          8));
      return ldmatrix(builder, loc, a, 4, /*transpose=*/true, row, col);
    }
    if (a.fragment) {
      int64_t base = (mi * plan.repeatsK + ki) * slots;
      for (int64_t j = 0; j < slots; ++j)
        elements.push_back(slotValue(builder, loc, *a.fragment, base + j));
    } else {
      Value row0 = arith::AddIOp::create(
          builder, loc, rowBase, k.constant(builder, loc, mi * plan.atomM));
      elements = gatherShared(builder, loc, a, atom.a, row0,
                              k.constant(builder, loc, ki * plan.atomK));
    }
    return pack(builder, loc, elements, 4, a.elementType);
  }

  /// B tile `ni` read with ldmatrix (an x2 per n-tile: matrices k 0-7 and
  /// k 8-15 of 8 columns).
  Value loadBWithLdMatrix(OpBuilder &builder, Location loc, int64_t ki,
                          int64_t ni) {
    Value n0 = add(builder, loc, colBase,
                   k.constant(builder, loc, ni * plan.atomN));
    Value k0 = k.constant(builder, loc, ki * plan.atomK);
    Value matrix = arith::RemUIOp::create(
        builder, loc, laneDiv(builder, loc, 8), k.constant(builder, loc, 2));
    Value r = laneRem(builder, loc, 8);
    if (!b.transposed) {
      // Stored K x N (rows of n): transposed reads, lane l at row k.
      Value row = add(builder, loc, k0,
                      add(builder, loc, mul(builder, loc, matrix, 8), r));
      return ldmatrix(builder, loc, b, 2, /*transpose=*/true, row, n0);
    }
    // Stored N x K (rows of k): plain reads.
    Value row = add(builder, loc, n0, r);
    Value col = add(builder, loc, k0, mul(builder, loc, matrix, 8));
    return ldmatrix(builder, loc, b, 2, /*transpose=*/false, row, col);
  }

  Value loadB(OpBuilder &builder, Location loc, int64_t ki, int64_t ni) {
    int64_t slots = getSlotExtent(atom.b);
    SmallVector<Value> elements;
    if (canUseLdMatrix(b, plan))
      return loadBWithLdMatrix(builder, loc, ki, ni);
    if (b.fragment) {
      int64_t base = (ki * plan.repeatsN + ni) * slots;
      for (int64_t j = 0; j < slots; ++j)
        elements.push_back(slotValue(builder, loc, *b.fragment, base + j));
    } else {
      Value col0 = arith::AddIOp::create(
          builder, loc, colBase, k.constant(builder, loc, ni * plan.atomN));
      elements = gatherShared(builder, loc, b, atom.b,
                              k.constant(builder, loc, ki * plan.atomK), col0);
    }
    return pack(builder, loc, elements, 2, b.elementType);
  }

  KernelLowering &k;
  GemmOp op;
  const GemmPlan &plan;
  const MmaAtom &atom;
  Operand a, b;
  const FragmentStorage &c;
  Value lane, rowBase, colBase;
};

/// Each thread owns a (repeatsM x repeatsN) block of C and accumulates it
/// over K with fused multiply-adds.
LogicalResult lowerFma(KernelLowering &k, GemmOp op, const GemmPlan &plan,
                       const Operand &a, const Operand &b,
                       const FragmentStorage &c) {
  OpBuilder &builder = k.rewriter;
  Location loc = op.getLoc();
  int64_t tm = plan.warpsM, tn = plan.warpsN, rm = plan.repeatsM,
          rn = plan.repeatsN, kk = plan.repeatsK;
  Value guard;
  if (tm * tn < k.threads)
    guard = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                  k.threadId, k.constant(builder, loc, tm * tn));
  auto body = [&](OpBuilder &ib) {
    Value tnValue = k.constant(ib, loc, tn);
    Value rowBase = arith::MulIOp::create(
        ib, loc, arith::DivUIOp::create(ib, loc, k.threadId, tnValue),
        k.constant(ib, loc, rm));
    Value colBase = arith::MulIOp::create(
        ib, loc, arith::RemUIOp::create(ib, loc, k.threadId, tnValue),
        k.constant(ib, loc, rn));
    // One step of K: `kIndex` static when an operand is in registers.
    auto step = [&](OpBuilder &sb, Value kValue, std::optional<int64_t> kIndex) {
      SmallVector<Value> aValues, bValues;
      for (int64_t r = 0; r < rm; ++r)
        aValues.push_back(
            a.fragment
                ? slotValue(sb, loc, *a.fragment, r * kk + *kIndex)
                : readShared(k, sb, loc, a,
                             arith::AddIOp::create(sb, loc, rowBase,
                                                   k.constant(sb, loc, r)),
                             kValue));
      for (int64_t cc = 0; cc < rn; ++cc)
        bValues.push_back(
            b.fragment
                ? slotValue(sb, loc, *b.fragment, *kIndex * rn + cc)
                : readShared(k, sb, loc, b, kValue,
                             arith::AddIOp::create(sb, loc, colBase,
                                                   k.constant(sb, loc, cc))));
      for (int64_t r = 0; r < rm; ++r)
        for (int64_t cc = 0; cc < rn; ++cc) {
          int64_t slot = r * rn + cc;
          setSlot(sb, loc, c, slot,
                  buildMulAdd(sb, loc, aValues[r], bValues[cc],
                              slotValue(sb, loc, c, slot)));
        }
    };
    if (a.fragment || b.fragment) {
      for (int64_t kIndex = 0; kIndex < kk; ++kIndex)
        step(ib, k.constant(ib, loc, kIndex), kIndex);
      return;
    }
    auto loop = scf::ForOp::create(ib, loc, k.constant(ib, loc, 0),
                                   k.constant(ib, loc, kk),
                                   k.constant(ib, loc, 1));
    OpBuilder lb = OpBuilder::atBlockTerminator(loop.getBody());
    step(lb, loop.getInductionVar(), std::nullopt);
  };
  if (!guard) {
    body(builder);
    return success();
  }
  scf::IfOp::create(builder, loc, guard, [&](OpBuilder &then, Location l) {
    body(then);
    scf::YieldOp::create(then, l);
  });
  return success();
}

} // namespace

LogicalResult mlir::tile::gpu_lowering::lowerGemm(KernelLowering &k,
                                                  GemmOp op) {
  OpBuilder &builder = k.rewriter;
  Location loc = op.getLoc();
  builder.setInsertionPoint(op);
  FailureOr<GemmPlan> plan = planGemm(op, k.target, k.threads);
  if (failed(plan))
    return failure();
  auto cIt = k.fragments.find(op.getC());
  if (cIt == k.fragments.end())
    return op.emitOpError("accumulator is not a tile.fragment");
  const FragmentStorage &c = cIt->second;
  if (!haveSameOwners(c.layout, plan->c, /*compareSlots=*/true))
    return op.emitOpError("accumulator layout does not match ")
           << plan->describe() << "; run tile-infer-layouts for this chip";

  auto operand = [&](Value value, bool transposed,
                     const Layout &planned) -> FailureOr<Operand> {
    Operand x;
    x.value = value;
    x.transposed = transposed;
    x.elementType = cast<ShapedType>(value.getType()).getElementType();
    if (auto it = k.fragments.find(value); it != k.fragments.end()) {
      if (!haveSameOwners(it->second.layout, planned, /*compareSlots=*/true))
        return op.emitOpError("register operand layout does not match ")
               << plan->describe() << "; run tile-infer-layouts for this chip";
      x.fragment = &it->second;
    } else if (auto it = k.shared.find(value); it != k.shared.end()) {
      x.shared = &it->second;
    } else {
      return op.emitOpError("operand is neither a fragment nor a "
                            "tile.alloc_shared buffer");
    }
    return x;
  };
  FailureOr<Operand> a = operand(op.getA(), op.getTransposeA(), plan->a);
  FailureOr<Operand> b = operand(op.getB(), op.getTransposeB(), plan->b);
  if (failed(a) || failed(b))
    return failure();

  if (op.getClearAccum()) {
    Type type = c.type.getElementType();
    Value zero = arith::ConstantOp::create(builder, loc, type,
                                           builder.getZeroAttr(type));
    for (int64_t slot = 0, e = getSlotExtent(c.layout); slot < e; ++slot)
      setSlot(builder, loc, c, slot, zero);
  }

  LogicalResult result = success();
  switch (plan->instruction) {
  case GemmInstruction::MmaSync: {
    std::optional<MmaAtom> atom =
        getMmaSyncAtom(a->elementType.getIntOrFloatBitWidth());
    result = MmaLowering(k, op, *plan, *atom, *a, *b, c).run();
    break;
  }
  case GemmInstruction::Fma:
    result = lowerFma(k, op, *plan, *a, *b, c);
    break;
  case GemmInstruction::Mfma:
    return op.emitOpError("MFMA gemms lower on the ROCDL path, not to NVVM");
  }
  if (failed(result))
    return failure();
  k.rewriter.eraseOp(op);
  return success();
}
