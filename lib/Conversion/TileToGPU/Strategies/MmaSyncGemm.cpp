//===- MmaSyncGemm.cpp - tile.gemm with mma.sync --------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Each warp repeats the m16n8kK instruction over its share of C; operands
// come from registers or shared memory (ldmatrix for 16-bit types).
//
//===----------------------------------------------------------------------===//

#include "GemmStrategies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

class MmaLowering {
public:
  MmaLowering(const KernelContext &k, OpBuilder &builder, GemmOp op, const GemmPlan &plan,
              const MmaAtom &atom, GemmOperand a, GemmOperand b,
              const FragmentStorage &c)
      : k(k), builder(builder), op(op), plan(plan), atom(atom), a(a), b(b),
        c(c) {}

  LogicalResult run() {
    
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
            acc.push_back(c.load(builder, loc, base + j));
          if (a.elementType.isBF16()) {
            SmallVector<Value> d =
                bf16Mma(builder, loc, aRegs[mi], bRegs[ni], acc);
            for (int64_t j = 0; j < 4; ++j)
              c.store(builder, loc, base + j, d[j]);
            continue;
          }
          Value cVec = vector::FromElementsOp::create(
              builder, loc, VectorType::get({2, 2}, cType), acc);
          Value d = nvgpu::MmaSyncOp::create(
              builder, loc, aRegs[mi], bRegs[ni], cVec,
              ArrayRef<int64_t>{plan.atomM, plan.atomN, plan.atomK},
              /*tf32Enabled=*/a.elementType.isF32());
          for (int64_t j = 0; j < 4; ++j)
            c.store(builder, loc, base + j,
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
    SmallVector<Value> aWords = registers(aVec);
    SmallVector<Value> bWords = registers(bVec);
    Value d = NVVM::MmaOp::create(
        builder, loc, resultType, aWords, bWords, acc,
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
                                  const GemmOperand &x, const Layout &atomLayout,
                                  Value row0, Value col0) {
    SmallVector<Value> elements;
    for (int64_t j = 0, e = getSlotExtent(atomLayout); j < e; ++j) {
      SmallVector<Value> rc = k.fragmentIndex(builder, loc, atomLayout, j, lane);
      Value row = arith::AddIOp::create(builder, loc, row0, rc[0]);
      Value col = arith::AddIOp::create(builder, loc, col0, rc[1]);
      elements.push_back(readSharedOperand(k, builder, loc, x, row, col));
    }
    return elements;
  }

  /// Whether ldmatrix can read `x`: 16-bit elements whose shared layout
  /// keeps runs of 8 (16 bytes) contiguous along the stored rows.
  static bool canUseLdMatrix(const GemmOperand &x, const GemmPlan &plan) {
    if (!x.shared || x.elementType.getIntOrFloatBitWidth() != 16 ||
        plan.atomK != 16)
      return false;
    return succeeded(x.shared->layout.rescale(1, 8));
  }

  /// ldmatrix of `tiles` 8x8 matrices; lane l supplies the address of row
  /// l % 8 of matrix l / 8 at stored (row, col).
  Value ldmatrix(OpBuilder &builder, Location loc, const GemmOperand &x,
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
        elements.push_back(a.fragment->load(builder, loc, base + j));
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
    Value group = laneDiv(builder, loc, 8);
    Value matrix = arith::RemUIOp::create(builder, loc, group,
                                          k.constant(builder, loc, 2));
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
        elements.push_back(b.fragment->load(builder, loc, base + j));
    } else {
      Value col0 = arith::AddIOp::create(
          builder, loc, colBase, k.constant(builder, loc, ni * plan.atomN));
      elements = gatherShared(builder, loc, b, atom.b,
                              k.constant(builder, loc, ki * plan.atomK), col0);
    }
    return pack(builder, loc, elements, 2, b.elementType);
  }

  const KernelContext &k;
  OpBuilder &builder;
  GemmOp op;
  const GemmPlan &plan;
  const MmaAtom &atom;
  GemmOperand a, b;
  const FragmentStorage &c;
  Value lane, rowBase, colBase;
};

} // namespace

LogicalResult mlir::tile::gpu_lowering::emitMmaSyncGemm(
    const KernelContext &k, OpBuilder &b, GemmOp op, const GemmPlan &plan,
    const GemmOperand &a, const GemmOperand &bOperand,
    const FragmentStorage &c) {
  std::optional<MmaAtom> atom =
      getMmaSyncAtom(a.elementType.getIntOrFloatBitWidth());
  return MmaLowering(k, b, op, plan, *atom, a, bOperand, c).run();
}
