//===- TileToCPU.cpp - convert-tile-to-cpu --------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Lowers tile kernels to loops on the host: the grid becomes one loop over
// blocks (an OpenMP worksharing loop, or an scf.for), threads are implicit,
// fragments and shared buffers become memref.allocas made once per worker
// and reused by its blocks, and every tile op becomes a loop nest with the
// boundary semantics of the GPU path (reads outside a global tensor give
// the pad value, writes outside it are dropped). tile.print calls the C
// library's printf, once for each of the block's threads where every
// thread prints on the GPU. A reducer is one buffer whose updates run in
// order: its finalize has nothing to combine.
//
// A kernel that reads thread indices runs each block's threads as an
// OpenMP team (the blocks one after another; Threads.cpp): its code outside
// tile ops in every thread, its tile ops in the team's first thread between
// barriers, tile.barrier as the team's barrier.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToCPU/TileToCPU.h"

#include "Threads.h"

#include "tile/Conversion/Passes.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Utils/LoweringUtils.h"
#include "tile/Dialect/Tile/Utils/PrintLines.h"
#include "tile/Runtime/RuntimeSymbols.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/DialectConversion.h"

#include <memory>

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOCPU
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Type conversion
//===----------------------------------------------------------------------===//

TileToCPUTypeConverter::TileToCPUTypeConverter() {
  addConversion([](Type type) { return type; });
  addConversion([](FragmentType type) -> Type {
    return MemRefType::get(type.getShape(), type.getElementType());
  });
  addConversion([](MemRefType type) -> Type {
    if (!isa_and_nonnull<gpu::AddressSpaceAttr>(type.getMemorySpace()))
      return type;
    return MemRefType::get(type.getShape(), type.getElementType(),
                           type.getLayout());
  });
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

using namespace mlir::tile::cpu_lowering;

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Builds a loop nest over `shape` and calls `body` with the induction
/// variables; returns nothing, leaving the builder after the nest.
void buildNest(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
               function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t size : shape) {
    lbs.push_back(constantIndex(b, loc, 0));
    ubs.push_back(constantIndex(b, loc, size));
    steps.push_back(constantIndex(b, loc, 1));
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

/// `base + offsets`, elementwise.
SmallVector<Value> offsetIndex(OpBuilder &b, Location loc, ValueRange offsets,
                               ValueRange index) {
  SmallVector<Value> result;
  for (auto [offset, i] : llvm::zip(offsets, index))
    result.push_back(arith::AddIOp::create(b, loc, offset, i));
  return result;
}

SmallVector<Value> materializeOffsets(OpBuilder &b, Location loc,
                                      ArrayRef<OpFoldResult> mixed) {
  SmallVector<Value> values;
  for (OpFoldResult ofr : mixed)
    values.push_back(getValueOrCreateConstantIndexOp(b, loc, ofr));
  return values;
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<ShapedType>(v.getType()).getShape();
}

Type elementTypeOf(Value v) {
  return cast<ShapedType>(v.getType()).getElementType();
}

/// Where each tile.print of the module runs, recorded by the kernel's
/// lowering for the print's: the block's place in the grid (three index
/// values, as the GPU's block ids) and the kernel's thread count.
struct PrintSite {
  SmallVector<Value, 3> blockIds;
  int64_t threads;
  /// In a kernel whose threads run as a team: the printing thread's index.
  Value thread;
  /// In a tile.parallel body: printed by the iteration's thread (0 here,
  /// where no layout places iterations on threads).
  bool inParallel = false;
};
using PrintSites = llvm::DenseMap<Operation *, PrintSite>;

//===----------------------------------------------------------------------===//
// Structure: kernel, pipelined, parallel
//===----------------------------------------------------------------------===//

struct KernelLowering : OpConversionPattern<KernelOp> {
  KernelLowering(const TypeConverter &converter, MLIRContext *context,
                 bool openmp, std::shared_ptr<PrintSites> printSites)
      : OpConversionPattern(converter, context), openmp(openmp),
        printSites(std::move(printSites)) {}

  LogicalResult
  matchAndRewrite(KernelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> grid;
    for (OpFoldResult size :
         getMixedValues(op.getStaticGrid(), adaptor.getDynamicGrid(),
                        rewriter))
      grid.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, size));
    Value blocks = grid.front();
    for (Value size : ArrayRef(grid).drop_front())
      blocks = arith::MulIOp::create(rewriter, loc, blocks, size);

    // A block's buffers are a worker's, made once before its loop over
    // blocks and reused by each (a block starts with undefined contents on
    // the GPU too): the stack does not grow with the grid. A reducer
    // starts at its kind's identity where its allocation runs: a fill
    // there.
    SmallVector<Operation *> buffers;
    op.getBody().walk([&](Operation *nested) {
      if (isa<AllocSharedOp, FragmentOp>(nested))
        buffers.push_back(nested);
    });
    for (Operation *buffer : buffers) {
      auto fragment = dyn_cast<FragmentOp>(buffer);
      if (!fragment || !fragment.getReducerAttr())
        continue;
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointAfter(fragment);
      Value identity = buildReduceIdentity(rewriter, fragment.getLoc(),
                                           fragment.getReducerAttr().getValue(),
                                           fragment.getType().getElementType());
      FillOp::create(rewriter, fragment.getLoc(), fragment.getResult(),
                     identity);
    }
    auto hoistBuffers = [&] {
      for (Operation *buffer : buffers)
        rewriter.moveOpBefore(buffer, rewriter.getInsertionBlock(),
                              rewriter.getInsertionPoint());
    };

    bool threaded = namesThreads(op);
    if (threaded && !openmp)
      return op.emitOpError("reads thread indices, whose threads the CPU "
                            "target runs as an OpenMP team: this build "
                            "found no OpenMP runtime");
    Value linear;
    Operation *bodyEnd;
    if (threaded) {
      // scf.for over blocks { omp.parallel num_threads(threads) { body } }
      hoistBuffers();
      Value c0 = constantIndex(rewriter, loc, 0);
      Value c1 = constantIndex(rewriter, loc, 1);
      auto loop = scf::ForOp::create(rewriter, loc, c0, blocks, c1);
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
      linear = loop.getInductionVar();
      omp::ParallelOperands parallelClauses;
      parallelClauses.numThreads = arith::ConstantIntOp::create(
          rewriter, loc, static_cast<int64_t>(op.getThreads()), 32);
      auto parallel = omp::ParallelOp::create(rewriter, loc, parallelClauses);
      rewriter.createBlock(&parallel.getRegion());
      bodyEnd = omp::TerminatorOp::create(rewriter, loc);
      rewriter.setInsertionPoint(bodyEnd);
      Value thread = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getIndexType(),
          func::CallOp::create(
              rewriter, loc,
              getRuntimeFunction(op, rewriter, "omp_get_thread_num"),
              ValueRange())
              .getResult(0));
      lowerThreadOps(op, thread, rewriter);
      rewriter.setInsertionPoint(bodyEnd);
      SmallVector<Value> ids =
          getBlockIdsOfLinear(rewriter, loc, linear, grid, op.getRasterAttr());
      recordPrintSites(rewriter, loc, op, linear, grid, ids, thread);
      rewriter.inlineBlockBefore(&op.getBody().front(), bodyEnd, ids);
      rewriter.eraseOp(op);
      return success();
    }
    // Without thread indices every thread of a block runs the same code:
    // a barrier has nothing to order.
    op.getBody().walk([&](BarrierOp barrier) { rewriter.eraseOp(barrier); });
    if (openmp) {
      // omp.parallel num_threads(tileCpuThreadCount()) {
      //   buffers; omp.wsloop schedule(dynamic, 1) { loop_nest over blocks }
      // }
      func::FuncOp threadCount =
          getRuntimeFunction(op, rewriter, runtime::kCpuThreadCountSymbol);
      Value threads =
          func::CallOp::create(rewriter, loc, threadCount, ValueRange())
              .getResult(0);
      omp::ParallelOperands parallelClauses;
      parallelClauses.numThreads = threads;
      auto parallel = omp::ParallelOp::create(rewriter, loc, parallelClauses);
      rewriter.createBlock(&parallel.getRegion());
      auto parallelEnd = omp::TerminatorOp::create(rewriter, loc);
      rewriter.setInsertionPoint(parallelEnd);
      hoistBuffers();
      Value chunk = arith::ConstantIntOp::create(rewriter, loc, 1, 64);
      Value first = arith::ConstantIntOp::create(rewriter, loc, 0, 64);
      Value step = chunk;
      Value count = arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(), blocks);
      omp::WsloopOperands loopClauses;
      loopClauses.scheduleKind = omp::ClauseScheduleKindAttr::get(
          rewriter.getContext(), omp::ClauseScheduleKind::Dynamic);
      loopClauses.scheduleChunk = chunk;
      auto wsloop = omp::WsloopOp::create(rewriter, loc, loopClauses);
      rewriter.createBlock(&wsloop.getRegion());
      omp::LoopNestOperands nestClauses;
      nestClauses.loopLowerBounds = {first};
      nestClauses.loopUpperBounds = {count};
      nestClauses.loopSteps = {step};
      auto nest = omp::LoopNestOp::create(rewriter, loc, nestClauses);
      Block *body = rewriter.createBlock(&nest.getRegion(), {},
                                         {rewriter.getI64Type()}, {loc});
      bodyEnd = omp::YieldOp::create(rewriter, loc);
      rewriter.setInsertionPoint(bodyEnd);
      linear = arith::IndexCastOp::create(rewriter, loc,
                                          rewriter.getIndexType(),
                                          body->getArgument(0));
    } else {
      hoistBuffers();
      Value c0 = constantIndex(rewriter, loc, 0);
      Value c1 = constantIndex(rewriter, loc, 1);
      auto loop = scf::ForOp::create(rewriter, loc, c0, blocks, c1);
      bodyEnd = loop.getBody()->getTerminator();
      rewriter.setInsertionPoint(bodyEnd);
      linear = loop.getInductionVar();
    }
    SmallVector<Value> ids =
        getBlockIdsOfLinear(rewriter, loc, linear, grid, op.getRasterAttr());
    recordPrintSites(rewriter, loc, op, linear, grid, ids);
    rewriter.inlineBlockBefore(&op.getBody().front(), bodyEnd, ids);
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// `func.func private @name() -> i32`, declared once.
  static func::FuncOp getRuntimeFunction(Operation *op, RewriterBase &rewriter,
                                         StringRef name) {
    auto module = op->getParentOfType<ModuleOp>();
    if (auto existing = module.lookupSymbol<func::FuncOp>(name))
      return existing;
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    auto function = func::FuncOp::create(
        rewriter, module.getLoc(), name,
        rewriter.getFunctionType({}, {rewriter.getI32Type()}));
    function.setPrivate();
    return function;
  }

  /// The block's place in the launched grid for the kernel's prints: its
  /// ids before rasterization, padded with zeros to three.
  void recordPrintSites(OpBuilder &b, Location loc, KernelOp op, Value linear,
                        ArrayRef<Value> grid, ArrayRef<Value> ids,
                        Value thread = Value()) const {
    SmallVector<PrintOp> prints;
    op.getBody().walk([&](PrintOp print) { prints.push_back(print); });
    if (prints.empty())
      return;
    PrintSite site;
    site.blockIds.assign(
        op.getRasterAttr()
            ? getBlockIdsOfLinear(b, loc, linear, grid, RasterAttr())
            : SmallVector<Value>(ids));
    while (site.blockIds.size() < 3)
      site.blockIds.push_back(constantIndex(b, loc, 0));
    site.threads = static_cast<int64_t>(op.getThreads());
    site.thread = thread;
    for (PrintOp print : prints) {
      site.inParallel = print.getParallel() != nullptr;
      (*printSites)[print] = site;
    }
  }

  bool openmp;
  std::shared_ptr<PrintSites> printSites;
};

struct PipelinedLowering : OpConversionPattern<PipelinedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PipelinedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Software pipelining is a GPU latency optimization: on the CPU the loop
    // runs as written.
    auto loop = scf::ForOp::create(rewriter, op.getLoc(), adaptor.getLower(),
                                   adaptor.getUpper(), adaptor.getStep());
    rewriter.inlineBlockBefore(&op.getBody().front(),
                               loop.getBody()->getTerminator(),
                               loop.getInductionVar());
    rewriter.eraseOp(op);
    return success();
  }
};

struct ParallelLowering : OpConversionPattern<ParallelOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ParallelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block *inner = nullptr;
    SmallVector<Value> ivs;
    buildNest(rewriter, op.getLoc(), op.getShape(),
              [&](OpBuilder &b, Location, ValueRange loopIvs) {
                inner = b.getInsertionBlock();
                ivs.assign(loopIvs.begin(), loopIvs.end());
              });
    rewriter.inlineBlockBefore(&op.getBody().front(), inner->getTerminator(),
                               ivs);
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

template <typename AllocOp>
struct AllocLowering : OpConversionPattern<AllocOp> {
  using OpConversionPattern<AllocOp>::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AllocOp op, typename AllocOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<MemRefType>(
        this->getTypeConverter()->convertType(op.getType()));
    if (!type)
      return rewriter.notifyMatchFailure(op, "cannot convert buffer type");
    // Per block, like shared memory and registers: on the stack.
    rewriter.replaceOpWithNewOp<memref::AllocaOp>(op, type,
                                                  rewriter.getI64IntegerAttr(64));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Tile operations
//===----------------------------------------------------------------------===//

struct CopyLowering : OpConversionPattern<CopyOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool srcGlobal = op.getGlobal() == op.getSource();
    bool dstGlobal = op.getGlobal() && !srcGlobal;
    SmallVector<Value> offsets =
        materializeOffsets(rewriter, loc, op.getMixedOffsets());
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    Type dstElement = elementTypeOf(op.getDest());
    buildNest(rewriter, loc, shapeOf(op.getTile()),
              [&](OpBuilder &b, Location l, ValueRange ivs) {
                SmallVector<Value> srcIndex =
                    srcGlobal ? offsetIndex(b, l, offsets, ivs)
                              : SmallVector<Value>(ivs);
                SmallVector<Value> dstIndex =
                    dstGlobal ? offsetIndex(b, l, offsets, ivs)
                              : SmallVector<Value>(ivs);
                Value v = buildGuardedLoad(b, l, src, srcIndex, srcGlobal,
                                      op.getPadAttr());
                v = convertScalar(b, l, v, dstElement);
                buildGuardedWrite(b, l, dst, dstIndex, dstGlobal,
                             [&](OpBuilder &w, Location wl) {
                               memref::StoreOp::create(w, wl, v, dst, dstIndex);
                             });
              });
    rewriter.eraseOp(op);
    return success();
  }
};

struct AtomicAddLowering : OpConversionPattern<AtomicAddOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(AtomicAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> offsets =
        materializeOffsets(rewriter, loc, op.getMixedOffsets());
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    Type dstElement = elementTypeOf(op.getDest());
    arith::AtomicRMWKind kind = isa<FloatType>(dstElement)
                                    ? arith::AtomicRMWKind::addf
                                    : arith::AtomicRMWKind::addi;
    buildNest(rewriter, loc, shapeOf(op.getSource()),
              [&](OpBuilder &b, Location l, ValueRange ivs) {
                SmallVector<Value> index = offsetIndex(b, l, offsets, ivs);
                buildGuardedWrite(b, l, dst, index, /*global=*/true,
                             [&](OpBuilder &w, Location wl) {
                               Value v = memref::LoadOp::create(w, wl, src, ivs);
                               v = convertScalar(w, wl, v, dstElement);
                               memref::AtomicRMWOp::create(w, wl, kind, v, dst,
                                                           index);
                             });
              });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Element by element, zeros in the padding.
struct Im2ColLowering : OpConversionPattern<Im2ColOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(Im2ColOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type element = op.getCol().getType().getElementType();
    buildNest(
        rewriter, op.getLoc(), op.getCol().getType().getShape(),
        [&](OpBuilder &b, Location l, ValueRange ivs) {
          Im2ColIndex at = buildIm2ColIndex(
              b, l, op, adaptor.getImage(), adaptor.getPixelBlock(),
              adaptor.getKBlock(), ivs[0], ivs[1]);
          auto read = scf::IfOp::create(
              b, l, at.inside,
              [&](OpBuilder &then, Location tl) {
                scf::YieldOp::create(
                    then, tl,
                    memref::LoadOp::create(then, tl, adaptor.getImage(), at.at)
                        .getResult());
              },
              [&](OpBuilder &otherwise, Location ol) {
                scf::YieldOp::create(
                    otherwise, ol,
                    arith::ConstantOp::create(
                        otherwise, ol,
                        cast<TypedAttr>(otherwise.getZeroAttr(element)))
                        .getResult());
              });
          memref::StoreOp::create(b, l, read.getResult(0), adaptor.getCol(),
                                  ivs);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

struct FillLowering : OpConversionPattern<FillOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    buildNest(rewriter, op.getLoc(), shapeOf(op.getDest()),
              [&](OpBuilder &b, Location l, ValueRange ivs) {
                memref::StoreOp::create(b, l, adaptor.getValue(),
                                        adaptor.getDest(), ivs);
              });
    rewriter.eraseOp(op);
    return success();
  }
};

/// One thread holds each element of a reducer on the host: it holds the
/// total already.
struct FinalizeReducerLowering : OpConversionPattern<FinalizeReducerOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FinalizeReducerOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct GemmLowering : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value a = adaptor.getA(), b = adaptor.getB(), c = adaptor.getC();
    Type cType = elementTypeOf(op.getC());
    int64_t m = op.getM(), n = op.getN(), k = op.getK();
    if (op.getClearAccum()) {
      Value zero = arith::ConstantOp::create(rewriter, loc, cType,
                                             rewriter.getZeroAttr(cType));
      buildNest(rewriter, loc, {m, n},
                [&](OpBuilder &builder, Location l, ValueRange ivs) {
                  memref::StoreOp::create(builder, l, zero, c, ivs);
                });
    }
    // Keep the innermost loop on unit-stride data: j for a row-major B,
    // k when B is transposed.
    bool kInner = op.getTransposeB();
    SmallVector<int64_t> shape =
        kInner ? SmallVector<int64_t>{m, n, k} : SmallVector<int64_t>{m, k, n};
    bool ta = op.getTransposeA(), tb = op.getTransposeB();
    buildNest(rewriter, loc, shape,
              [&](OpBuilder &builder, Location l, ValueRange ivs) {
                Value i = ivs[0];
                Value j = kInner ? ivs[1] : ivs[2];
                Value kk = kInner ? ivs[2] : ivs[1];
                Value av = memref::LoadOp::create(
                    builder, l, a, ta ? ValueRange{kk, i} : ValueRange{i, kk});
                Value bv = memref::LoadOp::create(
                    builder, l, b, tb ? ValueRange{j, kk} : ValueRange{kk, j});
                Value cv = memref::LoadOp::create(builder, l, c,
                                                  ValueRange{i, j});
                Value sum = buildMulAdd(builder, l, av, bv, cv);
                memref::StoreOp::create(builder, l, sum, c, ValueRange{i, j});
              });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = op.getDimAttr().getInt();
    ArrayRef<int64_t> srcShape = shapeOf(op.getSource());
    SmallVector<int64_t> outer(srcShape);
    outer.erase(outer.begin() + dim);
    Type type = elementTypeOf(op.getDest());
    ReduceKind kind = op.getKind();
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    bool clear = op.getClear();
    buildNest(rewriter, loc, outer,
              [&](OpBuilder &b, Location l, ValueRange ivs) {
                Value init = buildReduceIdentity(b, l, kind, type);
                Value lower = constantIndex(b, l, 0);
                Value upper = constantIndex(b, l, srcShape[dim]);
                Value step = constantIndex(b, l, 1);
                auto loop = scf::ForOp::create(
                    b, l, lower, upper, step, ValueRange{init},
                    [&](OpBuilder &ib, Location il, Value iv, ValueRange acc) {
                      SmallVector<Value> index(ivs);
                      index.insert(index.begin() + dim, iv);
                      Value x = memref::LoadOp::create(ib, il, src, index);
                      x = convertScalar(ib, il, x, type);
                      scf::YieldOp::create(
                          ib, il,
                          ValueRange{buildReduceCombine(ib, il, kind, acc[0], x)});
                    });
                SmallVector<Value> dstIndex(ivs);
                if (dstIndex.empty())
                  dstIndex.push_back(constantIndex(b, l, 0));
                Value result = loop.getResult(0);
                if (!clear)
                  result = buildReduceMerge(
                      b, l, kind, memref::LoadOp::create(b, l, dst, dstIndex),
                      result);
                memref::StoreOp::create(b, l, result, dst, dstIndex);
              });
    rewriter.eraseOp(op);
    return success();
  }
};

struct CumSumLowering : OpConversionPattern<CumSumOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(CumSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t dim = op.getDimAttr().getInt();
    ArrayRef<int64_t> shape = shapeOf(op.getSource());
    SmallVector<int64_t> outer(shape);
    outer.erase(outer.begin() + dim);
    Type type = elementTypeOf(op.getSource());
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    bool reverse = op.getReverse();
    buildNest(rewriter, loc, outer,
              [&](OpBuilder &b, Location l, ValueRange ivs) {
                Value zero = arith::ConstantOp::create(b, l, type,
                                                       b.getZeroAttr(type));
                Value last = constantIndex(b, l, shape[dim] - 1);
                Value lower = constantIndex(b, l, 0);
                Value upper = constantIndex(b, l, shape[dim]);
                Value step = constantIndex(b, l, 1);
                scf::ForOp::create(
                    b, l, lower, upper, step, ValueRange{zero},
                    [&](OpBuilder &ib, Location il, Value iv, ValueRange acc) {
                      Value at = reverse
                                     ? arith::SubIOp::create(ib, il, last, iv)
                                     : iv;
                      SmallVector<Value> index(ivs);
                      index.insert(index.begin() + dim, at);
                      Value x = memref::LoadOp::create(ib, il, src, index);
                      Value sum =
                          buildReduceMerge(ib, il, ReduceKind::Sum, acc[0], x);
                      memref::StoreOp::create(ib, il, sum, dst, index);
                      scf::YieldOp::create(ib, il, ValueRange{sum});
                    });
              });
    rewriter.eraseOp(op);
    return success();
  }
};

struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildGuardedLoad(rewriter, op.getLoc(), adaptor.getBuffer(),
                        adaptor.getIndices(),
                        isGlobalMemRef(op.getBuffer().getType()),
                        op.getPadAttr()));
    return success();
  }
};

struct StoreLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value buffer = adaptor.getBuffer();
    ValueRange index = adaptor.getIndices();
    buildGuardedWrite(rewriter, op.getLoc(), buffer, index,
                 isGlobalMemRef(op.getBuffer().getType()),
                 [&](OpBuilder &b, Location l) {
                   memref::StoreOp::create(b, l, adaptor.getValue(), buffer,
                                           index);
                 });
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Debugging
//===----------------------------------------------------------------------===//

/// One call of the C library's `printf`, the format a private global
/// string of `module`.
void emitHostPrintf(ModuleOp module, LLVM::LLVMFuncOp printf, OpBuilder &b,
                    Location loc, StringRef format, ValueRange args) {
  std::string name;
  for (unsigned i = 0; name.empty() || module.lookupSymbol(name); ++i)
    name = "tile_print_format_" + std::to_string(i);
  std::string text = format.str();
  text.push_back('\0');
  OpBuilder::InsertPoint at = b.saveInsertionPoint();
  b.setInsertionPointToStart(module.getBody());
  auto global = LLVM::GlobalOp::create(
      b, loc, LLVM::LLVMArrayType::get(b.getI8Type(), text.size()),
      /*isConstant=*/true, LLVM::Linkage::Private, name, b.getStringAttr(text),
      /*alignment=*/0);
  b.restoreInsertionPoint(at);
  Value string = LLVM::AddressOfOp::create(b, loc, global);
  SmallVector<Value> operands = {string};
  operands.append(args.begin(), args.end());
  LLVM::CallOp::create(b, loc, printf, operands);
}

struct PrintLowering : OpConversionPattern<PrintOp> {
  PrintLowering(const TypeConverter &converter, MLIRContext *context,
                std::shared_ptr<PrintSites> printSites)
      : OpConversionPattern(converter, context),
        printSites(std::move(printSites)) {}

  LogicalResult
  matchAndRewrite(PrintOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto it = printSites->find(op);
    if (it == printSites->end())
      return rewriter.notifyMatchFailure(op, "its kernel is not lowered");
    const PrintSite &site = it->second;
    Location loc = op.getLoc();
    using Printed = PrintOp::Printed;
    Printed printed = op.getPrinted();
    Value buffer = adaptor.getValue();
    PrintOrigin origin;
    origin.blockIds = site.blockIds;
    // printf for the lines, fflush(NULL) after them: they leave the
    // process's buffer before the kernel returns, as a GPU's printf output
    // does at the launch's end.
    auto module = op->getParentOfType<ModuleOp>();
    auto ptr = LLVM::LLVMPointerType::get(rewriter.getContext());
    FailureOr<LLVM::LLVMFuncOp> printf =
        LLVM::lookupOrCreateFn(rewriter, module, "printf", {ptr},
                               rewriter.getI32Type(), /*isVarArg=*/true);
    FailureOr<LLVM::LLVMFuncOp> fflush = LLVM::lookupOrCreateFn(
        rewriter, module, "fflush", {ptr}, rewriter.getI32Type());
    if (failed(printf) || failed(fflush))
      return op.emitOpError("prints through the C library's printf and "
                            "fflush, which the module declares with other "
                            "types");
    auto emitPrintf = [&](OpBuilder &b, Location l, StringRef format,
                          ValueRange args) {
      emitHostPrintf(module, *printf, b, l, format, args);
    };

    auto printElements = [&](OpBuilder &b) {
      buildRowMajorLoop(
          b, loc, buffer,
          [&](OpBuilder &inner, Location l, Value flat, ValueRange index) {
            Value element = memref::LoadOp::create(inner, l, buffer, index);
            buildPrintLine(inner, l, op, origin, flat, element, emitPrintf);
          });
    };
    if (site.inParallel) {
      origin.thread = constantIndex(rewriter, loc, 0);
      buildPrintLine(rewriter, loc, op, origin, Value(), buffer, emitPrintf);
    } else if (op.isPrintedByOneThread()) {
      origin.thread = constantIndex(rewriter, loc, op.getPrintingThread());
      printElements(rewriter);
    } else if (site.thread) {
      // Each thread of the team prints its own line.
      origin.thread = site.thread;
      if (printed == Printed::Local)
        printElements(rewriter);
      else
        buildPrintLine(rewriter, loc, op, origin, Value(), buffer, emitPrintf);
    } else {
      // The block's threads one after another, each with its line (or its
      // copy of a thread-local buffer, the same on the host).
      buildNest(rewriter, loc, {site.threads},
                [&](OpBuilder &b, Location l, ValueRange thread) {
                  origin.thread = thread[0];
                  if (printed == Printed::Local)
                    printElements(b);
                  else
                    buildPrintLine(b, l, op, origin, Value(), buffer,
                                   emitPrintf);
                });
    }
    LLVM::CallOp::create(rewriter, loc, *fflush,
                         ValueRange{LLVM::ZeroOp::create(rewriter, loc, ptr)});
    rewriter.eraseOp(op);
    return success();
  }

private:
  std::shared_ptr<PrintSites> printSites;
};

/// A fence orders memory for the whole process (the system's scope).
struct FenceLowering : OpConversionPattern<FenceOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    replaceFence(rewriter, op, /*syncScope=*/"");
    return success();
  }
};

/// Any other op that mentions a shared-memory type (memref.subview or
/// memref.load of a shared buffer, ...): the same op with converted types.
struct RetypeLowering : ConversionPattern {
  RetypeLowering(const TypeConverter &converter, MLIRContext *context)
      : ConversionPattern(converter, MatchAnyOpTypeTag(), /*benefit=*/1,
                          context) {}

  LogicalResult
  matchAndRewrite(Operation *op, ArrayRef<Value> operands,
                  ConversionPatternRewriter &rewriter) const override {
    if (op->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(op, "ops with regions are not "
                                             "retyped");
    SmallVector<Type> results;
    if (failed(getTypeConverter()->convertTypes(op->getResultTypes(),
                                                results)))
      return failure();
    OperationState state(op->getLoc(), op->getName(), operands, results,
                         op->getAttrs());
    rewriter.replaceOp(op, rewriter.create(state)->getResults());
    return success();
  }
};

struct ConvertTileToCPUPass
    : public tile::impl::ConvertTileToCPUBase<ConvertTileToCPUPass> {
  using ConvertTileToCPUBase::ConvertTileToCPUBase;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    TileToCPUTypeConverter converter;
    RewritePatternSet patterns(context);
    populateTileToCPUConversionPatterns(converter, patterns, openmp);
    ConversionTarget target(*context);
    target.addIllegalDialect<TileDialect>();
    target.markUnknownOpDynamicallyLegal(
        [&](Operation *op) { return converter.isLegal(op); });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tile::populateTileToCPUConversionPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns, bool openmp) {
  MLIRContext *context = patterns.getContext();
  auto printSites = std::make_shared<PrintSites>();
  patterns.add<KernelLowering>(converter, context, openmp, printSites);
  patterns.add<PrintLowering>(converter, context, printSites);
  patterns
      .add<PipelinedLowering, ParallelLowering, AllocLowering<AllocSharedOp>,
           AllocLowering<FragmentOp>, CopyLowering, AtomicAddLowering,
           Im2ColLowering, FillLowering, FinalizeReducerLowering, GemmLowering,
           ReduceLowering, CumSumLowering, FenceLowering, LoadLowering,
           StoreLowering, RetypeLowering>(converter, context);
}
