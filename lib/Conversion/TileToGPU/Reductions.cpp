//===- Reductions.cpp - tile.reduce and tile.cumsum on the GPU ------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A fragment reduction follows the source layout's digits of the reduced
// dim: slot digits are reduced in registers, power-of-two lane digits by
// butterfly shuffles within the warp, and the rest (warp digits, odd sizes)
// through shared scratch. The result lands in the destination's slots on
// every thread that holds it. Reductions and scans of shared memory deal
// their rows to threads, which walk them serially.
//
// A reducer's copies of an element combine the same way, along the digits
// of its layout's replica dim (tile.finalize_reducer); it starts at the
// identity, and a fill puts its value in copy 0 only, so that the value
// counts once in the total.
//
//===----------------------------------------------------------------------===//

#include "KernelContext.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

/// How the thread digits of the reduced dim combine partial results.
struct ThreadDigits {
  SmallVector<LayoutFactor> shuffled; // in-warp, power-of-two sizes
  SmallVector<LayoutFactor> viaShared;
  int64_t sharedCombos = 1;
};

ThreadDigits classify(const Layout &source, int64_t dim, int64_t warpSize) {
  ThreadDigits digits;
  for (const LayoutFactor &f : source.getFactors(dim)) {
    if (f.outDim != kThreadAxis || f.size <= 1)
      continue;
    if (f.stride * f.size <= warpSize && llvm::isPowerOf2_64(f.size)) {
      digits.shuffled.push_back(f);
    } else if (f.stride < warpSize && warpSize % f.stride == 0 &&
               f.size % (warpSize / f.stride) == 0 &&
               llvm::isPowerOf2_64(warpSize / f.stride)) {
      // A digit across warps: its in-warp part shuffles, the rest goes
      // through shared memory.
      LayoutFactor inWarp = f, acrossWarps = f;
      inWarp.size = warpSize / f.stride;
      acrossWarps.size = f.size / inWarp.size;
      acrossWarps.stride = warpSize;
      digits.shuffled.push_back(inWarp);
      if (acrossWarps.size > 1) {
        digits.viaShared.push_back(acrossWarps);
        digits.sharedCombos *= acrossWarps.size;
      }
    } else {
      digits.viaShared.push_back(f);
      digits.sharedCombos *= f.size;
    }
  }
  return digits;
}

/// The type partial results travel in: 32-bit for narrower types.
Type accumulatorType(Type type) {
  if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(type.getContext());
  if (isa<IntegerType>(type) && type.getIntOrFloatBitWidth() < 32)
    return IntegerType::get(type.getContext(), 32);
  return type;
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

Value digitOf(const KernelContext &k, OpBuilder &b, Location loc,
              const LayoutFactor &f) {
  Value quotient =
      arith::DivUIOp::create(b, loc, k.threadId, k.constant(b, loc, f.stride));
  return arith::RemUIOp::create(b, loc, quotient, k.constant(b, loc, f.size));
}

Value linearize(const KernelContext &k, OpBuilder &b, Location loc,
                ValueRange index, ArrayRef<int64_t> shape) {
  Value linear = k.constant(b, loc, 0);
  for (auto [i, size] : llvm::zip(index, shape))
    linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, linear, k.constant(b, loc, size)),
        i);
  return linear;
}

/// Combines each thread's `partial` values (one per slot of the result,
/// in `accType`) over the thread digits `digits` of `kind`'s reduction:
/// power-of-two lane digits by butterfly shuffles, the others through
/// shared scratch (`op`'s), where the threads `holder` admits (null: all)
/// with their shuffled digits at zero write their partials, one per
/// combination of the shared digits and result element (slot q's element
/// of `result`, a layout of `shape`; element 0 without one). Afterwards
/// every thread holds the combination in `partial`.
void combineAcrossThreads(const KernelContext &k, OpBuilder &b, Location loc,
                          Operation *op, ReduceKind kind, Type accType,
                          const ThreadDigits &digits,
                          function_ref<Value(OpBuilder &)> holder,
                          ArrayRef<int64_t> shape, const Layout *result,
                          std::map<int64_t, Value> &partial) {
  // Within the warp.
  Value width =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), k.target.warpSize);
  for (const LayoutFactor &f : digits.shuffled) {
    for (int64_t offset = f.stride; offset < f.stride * f.size; offset *= 2) {
      Value mask = arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
      for (auto &[q, acc] : partial) {
        Value other = gpu::ShuffleOp::create(b, loc, acc, mask, width,
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        acc = buildReduceMerge(b, loc, kind, acc, other);
      }
    }
  }
  if (digits.sharedCombos == 1)
    return;

  // Across warps, through shared scratch.
  int64_t elements = product(shape);
  Value scratch =
      k.getScratch(b, loc, op, digits.sharedCombos * elements, accType);
  // This thread's combination of the shared digits.
  Value combo = k.constant(b, loc, 0);
  int64_t radix = 1;
  for (const LayoutFactor &f : digits.viaShared) {
    Value digit = digitOf(k, b, loc, f);
    combo = arith::AddIOp::create(
        b, loc, combo,
        arith::MulIOp::create(b, loc, digit, k.constant(b, loc, radix)));
    radix *= f.size;
  }
  Value writer = holder(b);
  for (const LayoutFactor &f : digits.shuffled) {
    Value digit = digitOf(k, b, loc, f);
    Value zero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, digit,
                                       k.constant(b, loc, 0));
    writer =
        writer ? arith::AndIOp::create(b, loc, writer, zero).getResult() : zero;
  }
  k.barrier(b, loc);
  std::map<int64_t, Value> element;
  for (auto &[q, acc] : partial) {
    element[q] = result ? linearize(k, b, loc,
                                    k.fragmentIndex(b, loc, *result, q), shape)
                        : k.constant(b, loc, 0);
    Value at = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, combo, k.constant(b, loc, elements)),
        element[q]);
    Value v = acc;
    buildGuarded(b, loc, writer, [&](OpBuilder &then) {
      memref::StoreOp::create(then, loc, v, scratch, ValueRange{at});
    });
  }
  k.barrier(b, loc);
  for (auto &[q, acc] : partial) {
    Value total = buildReduceIdentity(b, loc, kind, accType);
    for (int64_t c = 0; c < digits.sharedCombos; ++c) {
      Value at = arith::AddIOp::create(b, loc, k.constant(b, loc, c * elements),
                                       element[q]);
      total = buildReduceMerge(
          b, loc, kind, total,
          memref::LoadOp::create(b, loc, scratch, ValueRange{at}));
    }
    acc = total;
  }
  k.barrier(b, loc);
}

LogicalResult reduceFragment(const KernelContext &k, OpBuilder &b, ReduceOp op,
                             const FragmentStorage &src,
                             const FragmentStorage &dst) {
  Location loc = op.getLoc();
  int64_t dim = op.getDimAttr().getInt();
  ReduceKind kind = op.getKind();
  Type dstType = dst.type.getElementType();
  Type accType = accumulatorType(dstType);
  if (accType.getIntOrFloatBitWidth() > 32)
    return op.emitOpError("cannot reduce ")
           << dstType << " across threads on the GPU yet (32-bit at most)";

  // Group the source slots by the destination slot their element reduces
  // into; the grouping must be the same on every thread.
  SmallVector<unsigned> kept;
  for (unsigned d = 0, e = getFragmentRank(src.layout); d < e; ++d)
    if (d != static_cast<unsigned>(dim))
      kept.push_back(d);
  bool toScalar = kept.empty();
  std::map<int64_t, SmallVector<int64_t>> groups;
  for (int64_t s = 0, e = getSlotExtent(src.layout); s < e; ++s) {
    if (!isSlotUsed(src.layout, s))
      continue;
    std::optional<int64_t> q;
    if (toScalar) {
      // A rank-1 source reduces into a 1-element tile: its only slot.
      q = 0;
    } else {
      q = k.mapSlot(src.layout, s, dst.layout, kept);
    }
    if (!q)
      return op.emitOpError("result layout is not the projection of the "
                            "source layout; run tile-infer-layouts");
    groups[*q].push_back(s);
  }

  // 1. In registers.
  std::map<int64_t, Value> partial;
  for (auto &[q, slots] : groups) {
    Value acc = buildReduceIdentity(b, loc, kind, accType);
    for (int64_t s : slots) {
      Value x = src.load(b, loc, s);
      acc = buildReduceCombine(b, loc, kind, acc,
                               convertScalar(b, loc, x, accType));
    }
    partial[q] = acc;
  }

  // 2. and 3. Across the reduced dim's thread digits: one writer per
  // combination of its shared digits and element, a thread of the source
  // layout (threads past it hold nothing) holding copy 0 of its elements.
  ThreadDigits digits = classify(src.layout, dim, k.target.warpSize);
  combineAcrossThreads(
      k, b, loc, op, kind, accType, digits,
      [&](OpBuilder &at) {
        return k.ownsSlot(at, loc, src.layout, /*slot=*/0,
                          /*firstCopyOnly=*/true);
      },
      dst.type.getShape(), toScalar ? nullptr : &dst.layout, partial);

  // 4. Into the destination's slots.
  for (auto &[q, acc] : partial) {
    Value result = acc;
    Value slot = k.constant(b, loc, q);
    if (!op.getClear())
      result = buildReduceMerge(
          b, loc, kind,
          convertScalar(b, loc, dst.loadAt(b, loc, slot), accType), result);
    dst.storeAt(b, loc, slot, convertScalar(b, loc, result, dstType));
  }
  return success();
}

/// Reduces along `dim` of a shared buffer, one output element at a time:
/// `store` receives each output's index and value.
void reduceSharedSerially(
    const KernelContext &k, OpBuilder &b, Location loc, const SharedStorage &src,
    int64_t dim, ReduceKind kind, Type accType, ValueRange outIndex,
    function_ref<void(OpBuilder &, Location, Value)> store) {
  Value init = buildReduceIdentity(b, loc, kind, accType);
  Value lower = k.constant(b, loc, 0);
  Value upper = k.constant(b, loc, src.type.getShape()[dim]);
  Value step = k.constant(b, loc, 1);
  auto loop = scf::ForOp::create(
      b, loc, lower, upper, step, ValueRange{init},
      [&](OpBuilder &ib, Location il, Value iv, ValueRange acc) {
        SmallVector<Value> index(outIndex);
        if (src.type.getRank() == 1)
          index.clear();
        index.insert(index.begin() + dim, iv);
        Value x = memref::LoadOp::create(ib, il, src.memory,
                                         k.sharedOffset(ib, il, src, index));
        scf::YieldOp::create(
            ib, il,
            ValueRange{buildReduceCombine(ib, il, kind, acc[0],
                                          convertScalar(ib, il, x, accType))});
      });
  store(b, loc, loop.getResult(0));
}

} // namespace

/// Bytes of shared scratch a reduction across warps needs (0: none).
static int64_t getReduceScratchBytes(const KernelPlan &plan, ReduceOp op) {
  auto src = plan.fragments.find(op.getSource());
  auto dstType = dyn_cast<FragmentType>(op.getDest().getType());
  if (src == plan.fragments.end() || !dstType)
    return 0;
  ThreadDigits digits = classify(src->second, op.getDimAttr().getInt(),
                                 plan.target.warpSize);
  if (digits.sharedCombos == 1)
    return 0;
  Type acc = accumulatorType(dstType.getElementType());
  return digits.sharedCombos * product(dstType.getShape()) *
         llvm::divideCeil(acc.getIntOrFloatBitWidth(), 8);
}

static LogicalResult lowerReduce(const KernelContext &k,
                                 PatternRewriter &rewriter, ReduceOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  const FragmentStorage *srcFragment = k.getFragment(op.getSource());
  const FragmentStorage *dstFragment = k.getFragment(op.getDest());
  const SharedStorage *srcShared = k.getShared(op.getSource());
  const SharedStorage *dstShared = k.getShared(op.getDest());
  LogicalResult result = success();
  ReduceKind kind = op.getKind();
  int64_t dim = op.getDimAttr().getInt();
  Type dstType = cast<ShapedType>(op.getDest().getType()).getElementType();
  Type accType = accumulatorType(dstType);
  auto finish = [&](OpBuilder &sb, Location l, Value old, Value acc) {
    if (!op.getClear())
      acc = buildReduceMerge(sb, l, kind, convertScalar(sb, l, old, accType),
                             acc);
    return convertScalar(sb, l, acc, dstType);
  };

  if (srcFragment && dstFragment) {
    result = reduceFragment(k, b, op, *srcFragment, *dstFragment);
  } else if (srcShared && dstFragment) {
    // Every holder of an output element reduces it from shared memory.
    const FragmentStorage &dst = *dstFragment;
    for (int64_t q = 0, e = getSlotExtent(dst.layout); q < e; ++q) {
      if (!isSlotUsed(dst.layout, q))
        continue;
      SmallVector<Value> out = k.fragmentIndex(b, loc, dst.layout, q);
      Value slot = k.constant(b, loc, q);
      reduceSharedSerially(k, b, loc, *srcShared, dim, kind, accType, out,
                           [&](OpBuilder &sb, Location l, Value acc) {
                             Value old = dst.loadAt(sb, l, slot);
                             dst.storeAt(sb, l, slot, finish(sb, l, old, acc));
                           });
    }
  } else if (srcShared && dstShared) {
    const SharedStorage &dst = *dstShared;
    k.barrier(b, loc);
    forEachDealtElement(
        k, b, loc, dst.type.getShape(),
        [&](OpBuilder &then, Location l, ValueRange out) {
          reduceSharedSerially(
              k, then, l, *srcShared, dim, kind, accType, out,
              [&](OpBuilder &sb, Location sl, Value acc) {
                Value at = k.sharedOffset(sb, sl, dst, out);
                Value old = memref::LoadOp::create(sb, sl, dst.memory, at);
                memref::StoreOp::create(sb, sl, finish(sb, sl, old, acc),
                                        dst.memory, at);
              });
        });
    k.barrier(b, loc);
  } else {
    return op.emitOpError("reduces a fragment into shared memory on the GPU; "
                          "reduce into a fragment, then copy it");
  }
  if (failed(result))
    return failure();
  rewriter.eraseOp(op);
  return success();
}

/// Bytes of shared scratch a scan of a fragment needs (0: none).
static int64_t getCumSumScratchBytes(const KernelPlan &plan, CumSumOp op) {
  if (!isa<FragmentType>(op.getSource().getType()) &&
      !isa<FragmentType>(op.getDest().getType()))
    return 0;
  auto type = cast<ShapedType>(op.getSource().getType());
  return product(type.getShape()) *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Scans `src` into `dst` (both shared) along `dim`: rows dealt to threads,
/// each walked serially.
static void scanShared(const KernelContext &k, OpBuilder &b, Location loc,
                       const SharedStorage &src, const SharedStorage &dst,
                       int64_t dim, bool reverse) {
  ArrayRef<int64_t> shape = src.type.getShape();
  SmallVector<int64_t> rows(shape);
  rows.erase(rows.begin() + dim);
  Type type = src.type.getElementType();
  forEachDealtElement(k, b, loc, rows, [&](OpBuilder &then, Location l,
                                           ValueRange row) {
    Value zero = arith::ConstantOp::create(then, l, type,
                                           then.getZeroAttr(type));
    Value last = k.constant(then, l, shape[dim] - 1);
    Value lower = k.constant(then, l, 0);
    Value upper = k.constant(then, l, shape[dim]);
    Value step = k.constant(then, l, 1);
    scf::ForOp::create(
        then, l, lower, upper, step, ValueRange{zero},
        [&](OpBuilder &sb, Location sl, Value iv, ValueRange acc) {
          Value at = reverse ? arith::SubIOp::create(sb, sl, last, iv) : iv;
          SmallVector<Value> index(row);
          index.insert(index.begin() + dim, at);
          Value x = memref::LoadOp::create(sb, sl, src.memory,
                                           k.sharedOffset(sb, sl, src, index));
          Value sum = buildReduceMerge(sb, sl, ReduceKind::Sum, acc[0], x);
          memref::StoreOp::create(sb, sl, sum, dst.memory,
                                  k.sharedOffset(sb, sl, dst, index));
          scf::YieldOp::create(sb, sl, ValueRange{sum});
        });
  });
}

static LogicalResult lowerCumSum(const KernelContext &k,
                                 PatternRewriter &rewriter, CumSumOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  int64_t dim = op.getDimAttr().getInt();
  const FragmentStorage *srcFragment = k.getFragment(op.getSource());
  const FragmentStorage *dstFragment = k.getFragment(op.getDest());
  bool viaScratch = srcFragment || dstFragment;
  // Fragments are scanned in shared scratch: threads do not hold whole rows.
  SharedStorage scratch;
  if (viaScratch) {
    auto type = cast<ShapedType>(op.getSource().getType());
    scratch.type = MemRefType::get(type.getShape(), type.getElementType());
    scratch.layout = Layout::rowMajor(type.getShape());
    scratch.memory = k.getScratch(b, loc, op, product(type.getShape()),
                                  type.getElementType());
  }
  const SharedStorage &src =
      srcFragment ? scratch : *k.getShared(op.getSource());
  const SharedStorage &dst = dstFragment ? scratch : *k.getShared(op.getDest());
  k.barrier(b, loc);
  if (srcFragment) {
    storeFragmentToShared(k, b, loc, *srcFragment, scratch);
    k.barrier(b, loc);
  }
  scanShared(k, b, loc, src, dst, dim, op.getReverse());
  k.barrier(b, loc);
  if (dstFragment) {
    loadFragmentFromShared(k, b, loc, scratch, *dstFragment);
    k.barrier(b, loc);
  }
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Reducers
//===----------------------------------------------------------------------===//

void mlir::tile::gpu_lowering::startReducer(const KernelContext &k,
                                            OpBuilder &b, FragmentOp op) {
  const FragmentStorage &reducer = *k.getFragment(op.getResult());
  Value identity =
      buildReduceIdentity(b, op.getLoc(), op.getReducerAttr().getValue(),
                          reducer.type.getElementType());
  for (int64_t slot = 0, e = getSlotExtent(reducer.layout); slot < e; ++slot)
    if (isSlotUsed(reducer.layout, slot))
      reducer.store(b, op.getLoc(), slot, identity);
}

void mlir::tile::gpu_lowering::fillReducer(const KernelContext &k, OpBuilder &b,
                                           FillOp op, ReduceKind kind) {
  Location loc = op.getLoc();
  const FragmentStorage &reducer = *k.getFragment(op.getDest());
  Value identity =
      buildReduceIdentity(b, loc, kind, reducer.type.getElementType());
  for (int64_t slot = 0, e = getSlotExtent(reducer.layout); slot < e; ++slot) {
    if (!isSlotUsed(reducer.layout, slot))
      continue;
    Value first = k.ownsSlot(b, loc, reducer.layout, slot,
                             /*firstCopyOnly=*/true);
    Value v =
        first ? arith::SelectOp::create(b, loc, first, op.getValue(), identity)
                    .getResult()
              : op.getValue();
    reducer.store(b, loc, slot, v);
  }
}

/// The digit of a reducer layout's copies.
static unsigned replicaDim(const Layout &layout) {
  return getFragmentRank(layout);
}

/// Bytes of shared scratch a finalize needs (0: none).
static int64_t getFinalizeScratchBytes(const KernelPlan &plan,
                                       FinalizeReducerOp op) {
  auto layout = plan.fragments.find(op.getReducer());
  if (layout == plan.fragments.end())
    return 0;
  ThreadDigits digits = classify(layout->second, replicaDim(layout->second),
                                 plan.target.warpSize);
  if (digits.sharedCombos == 1)
    return 0;
  auto type = cast<FragmentType>(op.getReducer().getType());
  Type acc = accumulatorType(type.getElementType());
  return digits.sharedCombos * product(type.getShape()) *
         llvm::divideCeil(acc.getIntOrFloatBitWidth(), 8);
}

static LogicalResult lowerFinalizeReducer(const KernelContext &k,
                                          PatternRewriter &rewriter,
                                          FinalizeReducerOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  const FragmentStorage &reducer = *k.getFragment(op.getReducer());
  const Layout &layout = reducer.layout;
  // Fragment layouts replicate across threads only.
  unsigned copies = replicaDim(layout);
  assert(llvm::all_of(layout.getFactors(copies),
                      [](const LayoutFactor &f) {
                        return f.size == 1 || f.outDim == kThreadAxis;
                      }) &&
         "copies on distinct threads");
  if (layout.getInShape()[copies] == 1) {
    // One copy of each element: it holds the total already.
    rewriter.eraseOp(op);
    return success();
  }
  ReduceKind kind = op.getKind();
  Type type = reducer.type.getElementType();
  Type accType = accumulatorType(type);
  if (accType.getIntOrFloatBitWidth() > 32)
    return op.emitOpError("cannot combine ")
           << type << " across threads on the GPU yet (32-bit at most)";
  std::map<int64_t, Value> partial;
  for (int64_t slot = 0, e = getSlotExtent(layout); slot < e; ++slot)
    if (isSlotUsed(layout, slot))
      partial[slot] =
          convertScalar(b, loc, reducer.load(b, loc, slot), accType);
  // Every copy is a partial value: one writer per combination of the
  // shared digits and element, any thread that holds the reducer.
  combineAcrossThreads(
      k, b, loc, op, kind, accType, classify(layout, copies, k.target.warpSize),
      [&](OpBuilder &at) {
        return k.ownsSlot(at, loc, layout, /*slot=*/0, /*firstCopyOnly=*/false);
      },
      reducer.type.getShape(), &layout, partial);
  for (auto &[slot, total] : partial)
    reducer.store(b, loc, slot, convertScalar(b, loc, total, type));
  rewriter.eraseOp(op);
  return success();
}

void mlir::tile::gpu_lowering::attachReductionLowerings(MLIRContext *context) {
  ReduceOp::attachInterface<
      LowerWithScratch<ReduceOp, getReduceScratchBytes, lowerReduce>>(*context);
  FinalizeReducerOp::attachInterface<LowerWithScratch<
      FinalizeReducerOp, getFinalizeScratchBytes, lowerFinalizeReducer>>(
      *context);
  CumSumOp::attachInterface<
      LowerWithScratch<CumSumOp, getCumSumScratchBytes, lowerCumSum>>(*context);
}
