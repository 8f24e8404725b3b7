//===- TileLoopOps.cpp - Loop ops and element accesses --------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.parallel and tile.pipelined (parsers, printers, verifiers), and the
// element accesses of tile.parallel bodies: tile.load, tile.store and the
// queries of how a fragment access indexes its fragment
// (getFragmentAccessDims, forEachFragmentAccess).
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "TileOpVerification.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::detail;

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<int64_t> shape;
  Builder &builder = parser.getBuilder();
  if (parser.parseArgumentList(ivs, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Paren,
          [&]() { return parser.parseInteger(shape.emplace_back()); }))
    return failure();
  result.addAttribute(getShapeAttrName(result.name),
                      builder.getDenseI64ArrayAttr(shape));
  if (succeeded(parser.parseOptionalKeyword("layout"))) {
    LayoutAttrInterface layout;
    if (parser.parseLParen() || parser.parseAttribute(layout) ||
        parser.parseRParen())
      return failure();
    result.addAttribute(getLayoutAttrName(result.name), layout);
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = builder.getIndexType();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getInductionVars(), p,
                        [&](BlockArgument iv) { p.printOperand(iv); });
  p << ") in (";
  llvm::interleaveComma(getShape(), p);
  p << ")";
  if (getLayoutAttr())
    p << " layout(" << getLayoutAttr() << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getShapeAttrName(), getLayoutAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

void ParallelOp::getAsmBlockArgumentNames(Region &region,
                                          OpAsmSetValueNameFn setNameFn) {
  static constexpr StringLiteral names[] = {"i", "j", "k", "l", "m", "n"};
  for (auto [iv, name] : llvm::zip(getInductionVars(), names))
    setNameFn(iv, name);
}

LogicalResult ParallelOp::verify() {
  if (getShape().empty())
    return emitOpError("expects an iteration space of rank 1 or more");
  for (int64_t size : getShape())
    if (size <= 0)
      return emitOpError("iteration space extents must be positive, got ")
             << size;
  if (!getLayoutAttr())
    return success();
  // The loop layout is a fragment layout over the iteration space.
  return verifyBufferLayout(*this, getLayoutAttr(), getShape(),
                            IndexType::get(getContext()),
                            /*wantFragment=*/true);
}

LogicalResult ParallelOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != getShape().size() ||
      llvm::any_of(body.getArgumentTypes(),
                   [](Type t) { return !t.isIndex(); }))
    return emitOpError("expects ")
           << getShape().size()
           << " induction variables of type index, one per dim";
  return success();
}

//===----------------------------------------------------------------------===//
// PipelinedOp
//===----------------------------------------------------------------------===//

static ParseResult parseI64List(OpAsmParser &parser,
                                SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square,
      [&]() { return parser.parseInteger(values.emplace_back()); });
}

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lower, upper, step;
  int64_t stages;
  Builder &builder = parser.getBuilder();
  Type index = builder.getIndexType();
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lower) || parser.parseKeyword("to") ||
      parser.parseOperand(upper) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("stages") ||
      parser.parseLParen() || parser.parseInteger(stages) ||
      parser.parseRParen())
    return failure();
  if (parser.resolveOperand(lower, index, result.operands) ||
      parser.resolveOperand(upper, index, result.operands) ||
      parser.resolveOperand(step, index, result.operands))
    return failure();
  result.addAttribute(getNumStagesAttrName(result.name),
                      builder.getI64IntegerAttr(stages));
  for (StringRef keyword : {"order", "stage"}) {
    if (failed(parser.parseOptionalKeyword(keyword)))
      continue;
    SmallVector<int64_t> values;
    if (parseI64List(parser, values))
      return failure();
    result.addAttribute(keyword, builder.getDenseI64ArrayAttr(values));
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  iv.type = index;
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  if (body->empty())
    body->emplaceBlock();
  return success();
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << " ";
  p.printOperand(getInductionVar());
  p << " = ";
  p.printOperand(getLower());
  p << " to ";
  p.printOperand(getUpper());
  p << " step ";
  p.printOperand(getStep());
  p << " stages(" << getNumStagesAttr().getInt() << ")";
  if (auto order = getOrder()) {
    p << " order [";
    llvm::interleaveComma(*order, p);
    p << "]";
  }
  if (auto stage = getStage()) {
    p << " stage [";
    llvm::interleaveComma(*stage, p);
    p << "]";
  }
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getNumStagesAttrName(), getOrderAttrName(), getStageAttrName()});
  p << " ";
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false);
}

void PipelinedOp::getAsmBlockArgumentNames(Region &region,
                                           OpAsmSetValueNameFn setNameFn) {
  setNameFn(getInductionVar(), "k");
}

LogicalResult PipelinedOp::verify() {
  int64_t stages = getNumStagesAttr().getInt();
  if (stages < 0)
    return emitOpError("num_stages must be non-negative, got ") << stages;
  return success();
}

LogicalResult PipelinedOp::verifyRegions() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("expects one induction variable of type index");
  int64_t numOps = body.getOperations().size();
  if (auto order = getOrder()) {
    if (static_cast<int64_t>(order->size()) != numOps)
      return emitOpError("'order' has ")
             << order->size() << " entries but the body has " << numOps
             << " ops";
    SmallVector<bool> seen(numOps, false);
    for (int64_t position : *order) {
      if (position < 0 || position >= numOps || seen[position])
        return emitOpError("'order' must be a permutation of 0..")
               << numOps - 1;
      seen[position] = true;
    }
  }
  if (auto stage = getStage()) {
    if (static_cast<int64_t>(stage->size()) != numOps)
      return emitOpError("'stage' has ")
             << stage->size() << " entries but the body has " << numOps
             << " ops";
    int64_t limit = std::max<int64_t>(1, getNumStagesAttr().getInt());
    for (int64_t s : *stage)
      if (s < 0 || s >= limit)
        return emitOpError("stage ")
               << s << " is out of range for " << limit << " pipeline stages";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp
//===----------------------------------------------------------------------===//

/// Whether `index` is the same in every iteration of `parallel`: a constant,
/// or a value defined outside its body.
static bool isUniformIndex(Value index, ParallelOp parallel) {
  if (matchPattern(index, m_Constant()))
    return true;
  return !parallel.getBody().isAncestor(index.getParentRegion());
}

SmallVector<unsigned> mlir::tile::getFragmentAccessDims(ParallelOp parallel,
                                                        ValueRange indices) {
  SmallVector<unsigned> dims;
  for (Value index : indices) {
    auto iv = dyn_cast<BlockArgument>(index);
    if (iv && iv.getOwner()->getParentOp() == parallel)
      dims.push_back(iv.getArgNumber());
    else
      dims.push_back(kUniformDim);
  }
  return dims;
}

void mlir::tile::forEachFragmentAccess(
    ParallelOp parallel,
    function_ref<void(Operation *access, Value buffer, ArrayRef<unsigned> dims)>
        callback) {
  parallel.getBody().walk([&](Operation *nested) {
    Value buffer;
    ValueRange indices;
    if (auto load = dyn_cast<LoadOp>(nested)) {
      buffer = load.getBuffer();
      indices = load.getIndices();
    } else if (auto store = dyn_cast<StoreOp>(nested)) {
      buffer = store.getBuffer();
      indices = store.getIndices();
    }
    if (!buffer || !isa<FragmentType>(buffer.getType()) ||
        nested->getParentOfType<ParallelOp>() != parallel)
      return;
    callback(nested, buffer, getFragmentAccessDims(parallel, indices));
  });
}

/// Verifies an element access of `buffer[indices]` in a tile.parallel body.
/// `isStore`: a fragment store must use every induction variable once.
static LogicalResult verifyElementAccess(Operation *op, Value buffer,
                                         ValueRange indices, bool isStore) {
  auto parallel = op->getParentOfType<ParallelOp>();
  if (!parallel)
    return op->emitOpError("must be nested in a 'tile.parallel' body");
  Type type = buffer.getType();
  if (!isGlobalMemRef(type) && !isBlockTile(type))
    return op->emitOpError("expects a global memref, a shared memref or a "
                           "fragment, got ")
           << type;
  int64_t rank = getShape(buffer).size();
  if (static_cast<int64_t>(indices.size()) != rank)
    return op->emitOpError("expects ")
           << rank << " indices for a rank-" << rank << " buffer, got "
           << indices.size();
  if (!isa<FragmentType>(type))
    return success();
  // Fragments: each index is an induction variable of the nearest parallel,
  // or uniform (the same in every iteration: constant or defined outside
  // it), which layout inference keeps in each thread's slots.
  llvm::SmallDenseSet<unsigned, 4> used;
  for (auto [dim, iv] :
       llvm::enumerate(getFragmentAccessDims(parallel, indices))) {
    if (iv == kUniformDim) {
      if (isUniformIndex(indices[dim], parallel))
        continue;
      return op->emitOpError("fragment index #")
             << dim
             << " must be an induction variable of the enclosing "
                "'tile.parallel' or the same in every iteration (a constant "
                "or a value defined outside it)";
    }
    if (!used.insert(iv).second)
      return op->emitOpError("fragment indices must be distinct induction "
                             "variables");
    int64_t extent = parallel.getShape()[iv];
    if (getShape(buffer)[dim] != extent)
      return op->emitOpError("fragment dim ")
             << dim << " has size " << getShape(buffer)[dim]
             << " but its induction variable ranges over " << extent;
  }
  // A reducer accumulates iterations that share an element.
  if (std::optional<ReduceKind> kind = getReducerKind(buffer)) {
    if (isStore)
      return verifyReducerUpdate(cast<StoreOp>(op), *kind);
    return verifyReducerLoad(cast<LoadOp>(op));
  }
  if (isStore && used.size() != parallel.getShape().size())
    return op->emitOpError("a fragment store must use every induction "
                           "variable of the enclosing 'tile.parallel' (or "
                           "update a reducer)");
  return success();
}

LogicalResult LoadOp::verify() {
  if (failed(verifyElementAccess(*this, getBuffer(), getIndices(),
                                 /*isStore=*/false)))
    return failure();
  if (auto pad = getPadAttr()) {
    if (!isGlobalMemRef(getBuffer().getType()))
      return emitOpError("'pad' needs a global memref: only global reads can "
                         "fall outside a tensor");
    if (pad.getType() != getType())
      return emitOpError("'pad' type ")
             << pad.getType() << " does not match the element type "
             << getType();
  }
  return success();
}

LogicalResult StoreOp::verify() {
  return verifyElementAccess(*this, getBuffer(), getIndices(),
                             /*isStore=*/true);
}
