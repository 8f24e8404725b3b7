//===- WgmmaGemm.cpp - tile.gemm with Hopper's warpgroup MMA --------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Each warpgroup (128 threads) issues wgmma.mma_async m64nNkK over its share
// of C: B, and A unless it sits in registers, are read by the tensor cores
// straight from swizzled shared memory through 64-bit matrix descriptors.
// The descriptors follow the buffers' #tile.swizzle layouts: the innermost
// dim is cut into panels of the swizzle's width, each panel row-major, so
//
//   K-major operand (K innermost): rows 8 apart by SBO = 8 * panel width;
//     a k-step moves the start address within the panel (or to the next);
//   MN-major operand (M or N innermost): K rows 8 apart by SBO = 8 * panel
//     width, panels along M/N apart by LBO = the panel's size in bytes.
//
// All of a gemm's instructions are issued and committed as one group, then
// waited for before the accumulator is read again (wgmma.wait_group 0) -
// unless the pipelined loop around it waits for it one iteration later
// (KernelContext::isInFlight), so that the tensor cores run on while the
// next stage is waited for, or issues it late and waits where it must
// (waitForWgmma; PipelinePlan::deferredGemm).
// Upstream's nvvm.wgmma.mma_async has no register-A form, so both forms are
// emitted as the PTX instruction itself. An f16 accumulator (f16 A and B)
// holds the same elements per thread as an f32 one, two to a register:
// slots 2r and 2r + 1 go in and come out packed as an f16x2 word.
//
//===----------------------------------------------------------------------===//

#include "GemmStrategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// `values` (all f32 or all i32: the registers wgmma reads and writes)
/// passed through empty asm statements with side effects, which take and
/// return them (64 to a statement): a value read after them is the one
/// defined before them, and side effects keep their place among wgmma's
/// fence and waits. Around a wgmma this pins the registers it reads before
/// wgmma.fence (an accumulator or A defined after the fence is undefined
/// behaviour: LLVM put the zeros of a first k-step there once they were
/// constants, and an H200 computed wrong results) and keeps reads of the
/// accumulator after the wait.
static SmallVector<Value> fenceRegisters(OpBuilder &b, Location loc,
                                         ValueRange values) {
  constexpr int64_t kPerStatement = 64;
  SmallVector<Value> results;
  for (int64_t base = 0, e = values.size(); base < e; base += kPerStatement) {
    ValueRange chunk = values.slice(base, std::min(kPerStatement, e - base));
    int64_t n = chunk.size();
    Type type = chunk.front().getType();
    assert((type.isF32() || type.isInteger(32)) && "a 32-bit register");
    std::string output = type.isF32() ? "=f," : "=r,";
    std::string constraints;
    for (int64_t i = 0; i < n; ++i)
      constraints += output;
    for (int64_t i = 0; i < n; ++i)
      constraints += std::to_string(i) + (i + 1 < n ? "," : "");
    auto structType = LLVM::LLVMStructType::getLiteral(
        b.getContext(), SmallVector<Type>(n, type));
    Value fenced =
        LLVM::InlineAsmOp::create(
            b, loc, structType, chunk, "", constraints,
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::TailCallKind::None,
            LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT),
            ArrayAttr())
            .getResult(0);
    for (int64_t i = 0; i < n; ++i)
      results.push_back(LLVM::ExtractValueOp::create(b, loc, fenced, i));
  }
  return results;
}

/// Slots `first` and `first + 1` of a 16-bit `fragment` as one 32-bit word
/// (the register wgmma reads them from).
static Value packSlots(OpBuilder &b, Location loc,
                       const FragmentStorage &fragment, int64_t first) {
  auto pairType = VectorType::get({2}, fragment.type.getElementType());
  auto wordType = VectorType::get({1}, b.getI32Type());
  Value pair = vector::FromElementsOp::create(
      b, loc, pairType,
      ValueRange{fragment.load(b, loc, first),
                 fragment.load(b, loc, first + 1)});
  Value word = vector::BitCastOp::create(b, loc, wordType, pair);
  return vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
}

/// A 32-bit `word` split into slots `first` and `first + 1` of a 16-bit
/// `fragment`.
static void unpackSlots(OpBuilder &b, Location loc,
                        const FragmentStorage &fragment, int64_t first,
                        Value word) {
  auto pairType = VectorType::get({2}, fragment.type.getElementType());
  Value pair = vector::BitCastOp::create(
      b, loc, pairType,
      vector::FromElementsOp::create(
          b, loc, VectorType::get({1}, b.getI32Type()), ValueRange{word}));
  for (int64_t i = 0; i < 2; ++i)
    fragment.store(
        b, loc, first + i,
        vector::ExtractOp::create(b, loc, pair, ArrayRef<int64_t>{i}));
}

namespace {

/// The PTX name of a wgmma input type.
StringRef getPtxType(Type type) {
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF32())
    return "tf32";
  if (isa<Float8E4M3FNType>(type))
    return "e4m3";
  return "e5m2";
}

/// How one shared operand is addressed by descriptors.
struct DescriptorOperand {
  const SharedStorage *buffer;
  bool mnMajor;
  int64_t elementBytes;
  /// Panel width in bytes (the swizzle mode) and elements; bytes of one
  /// panel (every row of it).
  int64_t mode, panelElements, panelBytes;
  /// Descriptor bits that do not depend on the address: LBO, SBO, swizzle.
  uint64_t fixedBits;

  DescriptorOperand(const SharedStorage &storage, bool mnMajor)
      : buffer(&storage), mnMajor(mnMajor) {
    elementBytes = storage.type.getElementTypeBitWidth() / 8;
    mode = *storage.layout.getSwizzle()->getModeBytes(elementBytes);
    panelElements = mode / elementBytes;
    int64_t rows = storage.type.getNumElements() /
                   storage.type.getShape().back();
    panelBytes = rows * mode;
    uint64_t lbo = mnMajor ? panelBytes : 16; // unused when K-major
    uint64_t sbo = 8 * mode;
    fixedBits = ((lbo >> 4) & 0x3fff) << 16 | ((sbo >> 4) & 0x3fff) << 32 |
                uint64_t(Swizzle::getWgmmaLayoutType(mode)) << 62;
  }

  /// Byte offset (before swizzling) of the instruction tile whose first
  /// row along M/N is `mn` and first K is `k`.
  int64_t offset(int64_t mn, int64_t k) const {
    if (mnMajor)
      return (mn / panelElements) * panelBytes + k * mode;
    return (k / panelElements) * panelBytes + mn * mode +
           (k % panelElements) * elementBytes;
  }
};

class WgmmaLowering {
public:
  WgmmaLowering(const KernelContext &k, OpBuilder &b, GemmOp op,
                const GemmPlan &plan, const GemmOperand &a,
                const GemmOperand &bOperand, const FragmentStorage &c)
      : k(k), b(b), op(op), plan(plan), a(a), bOperand(bOperand), c(c),
        loc(op.getLoc()) {}

  LogicalResult run();

private:
  /// The i64 descriptor of `operand` at the start of this warpgroup's
  /// share: `mnBase` rows along M/N (a run-time value) into the buffer.
  Value baseDescriptor(const DescriptorOperand &operand, Value mnBase);
  /// `base` advanced by `bytes` (a multiple of 16).
  Value advance(Value base, int64_t bytes);
  /// Issues one instruction; returns the new accumulator struct.
  /// One wgmma: acc + A x B, or A x B alone without `accumulate` (the
  /// scale-d flag: the accumulator's input is not read).
  Value mma(Value acc, ValueRange aOperand, Value descB, bool accumulate);

  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }

  /// An f16 accumulator: two elements per 32-bit register.
  bool isHalfAccumulator() const { return c.type.getElementType().isF16(); }
  /// Accumulator elements per thread of one instruction's tile, and the
  /// registers that hold them.
  int64_t accumulatorSlots() const { return plan.atomN / 2; }
  int64_t accumulatorRegisters() const {
    return isHalfAccumulator() ? plan.atomN / 4 : plan.atomN / 2;
  }

  const KernelContext &k;
  OpBuilder &b;
  GemmOp op;
  const GemmPlan &plan;
  const GemmOperand &a, &bOperand;
  const FragmentStorage &c;
  Location loc;
};

Value WgmmaLowering::baseDescriptor(const DescriptorOperand &operand,
                                    Value mnBase) {
  // The shared-window address of the buffer (and stage) as i64.
  Value address = memref::ExtractAlignedPointerAsIndexOp::create(
      b, loc, operand.buffer->memory);
  if (operand.buffer->stageOffset)
    address = arith::AddIOp::create(
        b, loc, address,
        arith::MulIOp::create(b, loc, operand.buffer->stageOffset,
                              k.constant(b, loc, operand.elementBytes)));
  // This warpgroup's rows along M/N: whole panels (MN-major) or rows of
  // the panel (K-major).
  Value rows;
  if (operand.mnMajor) {
    Value panels = arith::DivUIOp::create(
        b, loc, mnBase, k.constant(b, loc, operand.panelElements));
    rows = arith::MulIOp::create(b, loc, panels,
                                 k.constant(b, loc, operand.panelBytes));
  } else {
    rows =
        arith::MulIOp::create(b, loc, mnBase, k.constant(b, loc, operand.mode));
  }
  address = arith::AddIOp::create(b, loc, address, rows);
  Value start = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), address);
  start = arith::ShRUIOp::create(b, loc, start, i64(4));
  start = arith::AndIOp::create(b, loc, start, i64(0x3fff));
  return arith::OrIOp::create(b, loc, start,
                              i64(static_cast<int64_t>(operand.fixedBits)));
}

Value WgmmaLowering::advance(Value base, int64_t bytes) {
  if (bytes == 0)
    return base;
  return arith::AddIOp::create(b, loc, base, i64(bytes >> 4));
}

Value WgmmaLowering::mma(Value acc, ValueRange aOperand, Value descB,
                         bool accumulate) {
  int64_t n = plan.atomN, regs = accumulatorRegisters();
  Type aType = a.elementType, bType = bOperand.elementType;
  bool sixteenBit = aType.getIntOrFloatBitWidth() == 16;
  // Operands: the accumulator outputs $0.., the tied accumulator inputs,
  // then A, B's descriptor and the scale-d flag.
  int64_t aFirst = 2 * regs, bIndex = aFirst + aOperand.size();
  std::string asmText;
  llvm::raw_string_ostream os(asmText);
  os << "{\n.reg .pred p;\nsetp.ne.b32 p, $" << bIndex + 1
     << ", 0;\nwgmma.mma_async.sync.aligned.m64n" << n << "k" << plan.atomK
     << (isHalfAccumulator() ? ".f16." : ".f32.") << getPtxType(aType) << "."
     << getPtxType(bType) << " {";
  for (int64_t i = 0; i < regs; ++i)
    os << (i ? ", " : "") << "$" << i;
  os << "}, ";
  if (plan.aFromShared) {
    os << "$" << aFirst;
  } else {
    os << "{";
    for (size_t i = 0; i < aOperand.size(); ++i)
      os << (i ? ", " : "") << "$" << aFirst + i;
    os << "}";
  }
  os << ", $" << bIndex << ", p, 1, 1";
  if (sixteenBit) {
    if (plan.aFromShared)
      os << ", " << (plan.aMNMajor ? 1 : 0);
    os << ", " << (plan.bMNMajor ? 1 : 0);
  }
  os << ";\n}\n";

  std::string constraints;
  for (int64_t i = 0; i < regs; ++i)
    constraints += isHalfAccumulator() ? "=r," : "=f,";
  for (int64_t i = 0; i < regs; ++i)
    constraints += std::to_string(i) + ",";
  for (size_t i = 0; i < aOperand.size(); ++i)
    constraints += plan.aFromShared ? "l," : "r,";
  constraints += "l,r";

  SmallVector<Value> operands;
  for (int64_t i = 0; i < regs; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  operands.append(aOperand.begin(), aOperand.end());
  operands.push_back(descB);
  operands.push_back(
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), accumulate));
  return LLVM::InlineAsmOp::create(
             b, loc, acc.getType(), operands, asmText, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

LogicalResult WgmmaLowering::run() {
  bool half = isHalfAccumulator();
  int64_t slots = accumulatorSlots(), regs = accumulatorRegisters();
  Type regType = half ? Type(b.getI32Type()) : Type(b.getF32Type());
  auto accType = LLVM::LLVMStructType::getLiteral(
      b.getContext(), SmallVector<Type>(regs, regType));
  // Register r of instruction tile t: slot(s) of C it holds.
  auto loadRegister = [&](int64_t t, int64_t r) {
    return half ? packSlots(b, loc, c, t * slots + 2 * r)
                : c.load(b, loc, t * slots + r);
  };
  auto storeRegister = [&](int64_t t, int64_t r, Value value) {
    if (half)
      unpackSlots(b, loc, c, t * slots + 2 * r, value);
    else
      c.store(b, loc, t * slots + r, value);
  };

  Value group = arith::DivUIOp::create(b, loc, k.threadId,
                                       k.constant(b, loc, plan.warpSize));
  Value groupRow = arith::DivUIOp::create(
      b, loc, group, k.constant(b, loc, plan.warpsN));
  Value groupCol = arith::RemUIOp::create(
      b, loc, group, k.constant(b, loc, plan.warpsN));
  Value mBase = arith::MulIOp::create(
      b, loc, groupRow, k.constant(b, loc, plan.repeatsM * plan.atomM));
  Value nBase = arith::MulIOp::create(
      b, loc, groupCol, k.constant(b, loc, plan.repeatsN * plan.atomN));

  std::optional<DescriptorOperand> aDesc;
  Value aBase;
  if (plan.aFromShared) {
    aDesc.emplace(*a.shared, plan.aMNMajor);
    aBase = baseDescriptor(*aDesc, mBase);
  }
  DescriptorOperand bDesc(*bOperand.shared, plan.bMNMajor);
  Value bBase = baseDescriptor(bDesc, nBase);

  // Register A: pairs of 16-bit elements per 32-bit register.
  auto aRegisters = [&](int64_t mi, int64_t ki) {
    SmallVector<Value> words;
    int64_t base = (mi * plan.repeatsK + ki) * 8;
    for (int64_t r = 0; r < 4; ++r)
      words.push_back(packSlots(b, loc, *a.fragment, base + 2 * r));
    return words;
  };

  // What wgmma reads from registers (the accumulator unless cleared, A's
  // registers) is defined and pinned before wgmma.fence.
  int64_t tiles = plan.repeatsM * plan.repeatsN;
  SmallVector<Value> accumulators;
  if (!op.getClearAccum())
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t r = 0; r < regs; ++r)
        accumulators.push_back(loadRegister(t, r));
  accumulators = fenceRegisters(b, loc, accumulators);
  SmallVector<Value> aWords;
  if (!plan.aFromShared)
    for (int64_t mi = 0; mi < plan.repeatsM; ++mi)
      for (int64_t ki = 0; ki < plan.repeatsK; ++ki)
        llvm::append_range(aWords, aRegisters(mi, ki));
  aWords = fenceRegisters(b, loc, aWords);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);

  SmallVector<std::pair<int64_t, Value>> results;
  for (int64_t mi = 0; mi < plan.repeatsM; ++mi) {
    for (int64_t ni = 0; ni < plan.repeatsN; ++ni) {
      int64_t tile = mi * plan.repeatsN + ni;
      // With clear_accum the first k-step does not read the accumulator
      // (scale-d 0): nothing initializes it.
      Value acc = LLVM::PoisonOp::create(b, loc, accType);
      if (!op.getClearAccum())
        for (int64_t r = 0; r < regs; ++r)
          acc = LLVM::InsertValueOp::create(b, loc, acc,
                                            accumulators[tile * regs + r], r);
      for (int64_t ki = 0; ki < plan.repeatsK; ++ki) {
        int64_t k0 = ki * plan.atomK;
        SmallVector<Value> aOperand;
        if (plan.aFromShared)
          aOperand.push_back(
              advance(aBase, aDesc->offset(mi * plan.atomM, k0)));
        else
          aOperand.assign(aWords.begin() + (mi * plan.repeatsK + ki) * 4,
                          aWords.begin() + (mi * plan.repeatsK + ki + 1) * 4);
        Value descB = advance(bBase, bDesc.offset(ni * plan.atomN, k0));
        acc = mma(acc, aOperand, descB, ki != 0 || !op.getClearAccum());
      }
      results.push_back({tile, acc});
    }
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  // Left in flight: the enclosing loop waits (wait_group 1 per iteration,
  // 0 after it), and nothing reads the accumulator before (f32 only: an
  // f16 one is unpacked, which reads it; Pipelining.cpp keeps it waited).
  if (k.isInFlight(op)) {
    assert(!half && "an asynchronous wgmma accumulates in f32");
    for (auto [tile, acc] : results)
      for (int64_t r = 0; r < regs; ++r)
        storeRegister(tile, r, LLVM::ExtractValueOp::create(b, loc, acc, r));
    return success();
  }
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  for (auto [tile, acc] : results) {
    SmallVector<Value> values;
    for (int64_t i = 0; i < regs; ++i)
      values.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
    for (auto [r, value] : llvm::enumerate(fenceRegisters(b, loc, values)))
      storeRegister(tile, r, value);
  }
  return success();
}

} // namespace

void mlir::tile::gpu_lowering::waitForWgmma(OpBuilder &b, Location loc,
                                            int64_t pending,
                                            const FragmentStorage &c) {
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, pending);
  SmallVector<Value> values;
  for (int64_t s = 0, e = getSlotExtent(c.layout); s < e; ++s)
    values.push_back(c.load(b, loc, s));
  for (auto [s, value] : llvm::enumerate(fenceRegisters(b, loc, values)))
    c.store(b, loc, s, value);
}

LogicalResult mlir::tile::gpu_lowering::emitWgmmaGemm(
    const KernelContext &k, OpBuilder &b, GemmOp op, const GemmPlan &plan,
    const GemmOperand &a, const GemmOperand &bOperand,
    const FragmentStorage &c) {
  return WgmmaLowering(k, b, op, plan, a, bOperand, c).run();
}
