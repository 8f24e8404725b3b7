//===- Im2Col.cpp - tile.im2col on the GPU --------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.im2col gathers a convolution's column tile from an NHWC image. Each
// run of 16 bytes along a column-tile row is one run of channels of one
// image pixel (when C is a multiple of the run), so the tile moves in
// 16-byte chunks as a global-to-shared copy does: plainly, each thread
// loads its chunks (zeros in the padding) and stores them into the buffer;
// in a pipelined loop, as cp.async chunks whose source size is 0 in the
// padding (Strategies/CpAsyncPipeline.cpp issues them).
//
//===----------------------------------------------------------------------===//

#include "Copies.h"
#include "Strategies/PipelineStrategies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

int64_t mlir::tile::gpu_lowering::getIm2ColWidth(Im2ColOp op) {
  MemRefType image = op.getImage().getType();
  int64_t bytes = elementBytes(image.getElementType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (16 % bytes != 0 || op.getCol().getType().getShape()[1] % (16 / bytes) ||
      failed(image.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return 1;
  return 16 / bytes;
}

Value mlir::tile::gpu_lowering::buildIm2ColAlignment(OpBuilder &b, Location loc,
                                                     Im2ColOp op) {
  // Pixels aligned, and C a multiple of the chunk: a chunk starts at a
  // channel that is a multiple of the chunk (the tile's rows are whole
  // chunks) and never crosses into the next pixel.
  int64_t width = getIm2ColWidth(op);
  Value aligned = areRowsAligned(b, loc, op.getImage(), width);
  Value channels = memref::DimOp::create(b, loc, op.getImage(), 3);
  return arith::AndIOp::create(b, loc, aligned,
                               isMultipleOf(b, loc, channels, width));
}

std::string
mlir::tile::gpu_lowering::whyNotIm2ColProducer(const KernelPlan &plan,
                                               PipelinedOp loop, Im2ColOp op) {
  Block &body = loop.getBody().front();
  if (op->getBlock() != &body)
    return "it is nested in another op";
  if (loop->isAncestor(op.getImage().getParentBlock()->getParentOp()))
    return "its image is computed inside the loop";
  auto alloc = op.getCol().getDefiningOp<AllocSharedOp>();
  if (!alloc || loop->isAncestor(alloc))
    return "its column buffer is not allocated outside the loop";
  int64_t width = getIm2ColWidth(op);
  if (width == 1)
    return "its rows are not whole 16-byte chunks of unit-stride channels";
  if (std::string why = whyNotStagedBuffer(plan, loop, op, alloc, width);
      !why.empty())
    return why;
  if (failed(getOffsetSlice(plan, loop,
                            ValueRange{op.getPixelBlock(), op.getKBlock()})))
    return "its blocks depend on more than index arithmetic in the loop";
  std::optional<llvm::DenseSet<Value>> written = findWrittenBuffers(loop);
  if (!written || written->contains(getViewRoot(op.getImage())))
    return "the loop may write the image it reads";
  return "";
}

void mlir::tile::gpu_lowering::forEachIm2ColChunk(
    KernelContext &k, OpBuilder &b, PipelinedOp loop, Im2ColOp op,
    Value iteration, Value stage, Value valid,
    function_ref<void(const ProducerChunk &)> fn) {
  Location loc = op.getLoc();
  IRMapping mapping;
  cloneOffsetSlice(k.plan, b, loop,
                   ValueRange{op.getPixelBlock(), op.getKBlock()}, iteration,
                   valid, mapping);
  Value pixelBlock = mapping.lookupOrDefault(op.getPixelBlock());
  Value kBlock = mapping.lookupOrDefault(op.getKBlock());
  SharedStorage buffer = k.getStage(b, loc, op.getCol(), stage);
  int64_t width = getIm2ColWidth(op);
  dealChunks(
      k, b, loc, buffer.type.getShape(), width, [&](ArrayRef<Value> index) {
        Im2ColIndex at = buildIm2ColIndex(b, loc, op, op.getImage(), pixelBlock,
                                          kBlock, index[0], index[1]);
        ProducerChunk c;
        c.at = at.at;
        Value inside = arith::AndIOp::create(b, loc, valid, at.inside);
        c.count = arith::SelectOp::create(
            b, loc, inside, k.constant(b, loc, width), k.constant(b, loc, 0));
        c.dst = k.sharedOffset(b, loc, buffer, index);
        fn(c);
      });
}

/// Each thread loads the chunks dealt to it (16 bytes where the image's
/// rows allow, checked at run time, else elements), zeros in the padding,
/// and stores them into the column buffer.
static LogicalResult lowerIm2Col(const KernelContext &k,
                                 PatternRewriter &rewriter, Im2ColOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  b.setInsertionPoint(op);
  Side dst = describe(k, b, loc, op.getCol(), {});
  ArrayRef<int64_t> shape = op.getCol().getType().getShape();
  Type element = op.getCol().getType().getElementType();
  k.barrier(b, loc);
  auto gather = [&](int64_t width) {
    return [&, width](OpBuilder &ib) {
      forEachDealtElement(
          k, ib, loc, shape,
          [&](OpBuilder &inner, Location l, ValueRange index) {
            Im2ColIndex at = buildIm2ColIndex(
                inner, l, op, op.getImage(), op.getPixelBlock(), op.getKBlock(),
                index[0], index[1]);
            Type type = element;
            if (width > 1)
              type = VectorType::get({width}, element);
            auto read = scf::IfOp::create(
                inner, l, at.inside,
                [&](OpBuilder &then, Location tl) {
                  Value v = width > 1
                                ? vectorLoad(then, tl, cast<VectorType>(type),
                                             op.getImage(), at.at)
                                : memref::LoadOp::create(then, tl,
                                                         op.getImage(), at.at)
                                      .getResult();
                  scf::YieldOp::create(then, tl, v);
                },
                [&](OpBuilder &otherwise, Location ol) {
                  Value zero = arith::ConstantOp::create(
                      otherwise, ol,
                      cast<TypedAttr>(otherwise.getZeroAttr(type)));
                  scf::YieldOp::create(otherwise, ol, zero);
                });
            if (width > 1)
              writeVector(k, inner, l, dst, index, read.getResult(0));
            else
              writeMemory(k, inner, l, dst, index, read.getResult(0));
          },
          width);
    };
  };
  int64_t width = getIm2ColWidth(op);
  if (width > 1 && allowsVectors(dst, width))
    withAlignment(b, loc, buildIm2ColAlignment(b, loc, op), gather(width),
                  gather(1));
  else
    gather(1)(b);
  k.publishShared(b, loc);
  rewriter.eraseOp(op);
  return success();
}

void mlir::tile::gpu_lowering::attachIm2ColLowering(MLIRContext *context) {
  Im2ColOp::attachInterface<LowerWith<Im2ColOp, lowerIm2Col>>(*context);
}
