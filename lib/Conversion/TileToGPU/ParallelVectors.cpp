//===- ParallelVectors.cpp - tile.parallel on vectors ---------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A thread holds the iterations of a tile.parallel in runs: consecutive
// slots of the loop layout that are consecutive indices of its innermost
// dim. Such a run executes as one iteration on vectors, as TileLang's
// vectorized parallel loops do: what differs between the run's iterations
// (the innermost induction variable and what is computed from it) is a
// vector, what does not is a scalar computed once; memory read or written
// at consecutive innermost indices moves in vectors of up to 16 bytes where
// the buffer's layout and the alignment allow, other accesses element by
// element. Fragments are registers: their slots are read and written one by
// one.
//
//===----------------------------------------------------------------------===//

#include "Copies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// The widest run a vector holds (16 i8 elements: one 16-byte access).
static constexpr int64_t kMaxRun = 16;

/// Whether `op` computes on vectors as on scalars, one element at a time,
/// in code the targets lower well (arith, not the 8-bit floats that
/// tile-expand-float8 expands element by element).
static bool isVectorArith(Operation *op) {
  if (!isa<arith::ArithDialect>(op->getDialect()) ||
      !op->hasTrait<OpTrait::Vectorizable>())
    return false;
  auto scalar = [](Type type) {
    if (auto f = dyn_cast<FloatType>(type))
      return f.getWidth() >= 16;
    return type.isIntOrIndex();
  };
  return llvm::all_of(op->getOperandTypes(), scalar) &&
         llvm::all_of(op->getResultTypes(), scalar);
}

/// Whether `v` can be computed before the loop: defined outside `body`, or
/// by side-effect-free ops of `body` from such values (not the induction
/// variables).
static bool isHoistable(Value v, Block &body) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return v.getParentBlock() != &body;
  if (!body.getParentOp()->isAncestor(def))
    return true;
  return def->getNumRegions() == 0 && isMemoryEffectFree(def) &&
         llvm::all_of(def->getOperands(), [&](Value operand) {
           return isHoistable(operand, body);
         });
}

/// The run access a load or store at `indices` of `buffer` makes, if its
/// innermost index has the affine form and the other indices are the same
/// across the run.
static std::optional<ParallelVectors::Run>
findRun(const KernelContext &k, OpBuilder &b, Location loc,
        const ParallelVectors &plan, Value buffer, ValueRange indices,
        ParallelVectors::Affine form) {
  if (llvm::any_of(indices.drop_back(),
                   [&](Value v) { return plan.isVarying(v); }))
    return std::nullopt;
  Side side = describe(k, b, loc, buffer, {});
  int64_t chunk = std::min(plan.width / form.divisor,
                           int64_t(16) / elementBytes(side.getElementType()));
  // A constant offset is aligned to its largest power-of-two divisor.
  APInt constant;
  if (form.offset && matchPattern(form.offset, m_ConstantInt(&constant))) {
    int64_t value = constant.getSExtValue();
    while (chunk > 1 && value % (chunk * form.divisor) != 0)
      chunk /= 2;
  }
  for (; chunk > 1; chunk /= 2)
    if (allowsVectors(side, chunk))
      return ParallelVectors::Run{chunk, form};
  return std::nullopt;
}

/// Whether `atomic` adds to global memory without using the old value, in
/// elements the target adds as vectors.
static bool isAtomicAddOfVectors(const KernelContext &k,
                                 memref::AtomicRMWOp atomic) {
  auto type = cast<MemRefType>(atomic.getMemref().getType());
  return atomic.getKind() == arith::AtomicRMWKind::addf &&
         atomic.getResult().use_empty() && !type.getMemorySpace() &&
         k.codegen.getAtomicAddVectorWidth(k.target, type.getElementType()) > 1;
}

/// The buffer a run access (load, store or atomic add) reads or writes.
static Value getAccessedBuffer(Operation *access) {
  if (auto load = dyn_cast<LoadOp>(access))
    return load.getBuffer();
  if (auto store = dyn_cast<StoreOp>(access))
    return store.getBuffer();
  return cast<memref::AtomicRMWOp>(access).getMemref();
}

/// An integer constant, or std::nullopt.
static std::optional<int64_t> getConstant(Value v) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)))
    return std::nullopt;
  return value.getSExtValue();
}

/// A positive integer constant, or std::nullopt.
static std::optional<int64_t> getPositiveConstant(Value v) {
  std::optional<int64_t> value = getConstant(v);
  if (!value || *value <= 0)
    return std::nullopt;
  return value;
}

/// Classifies an index op of the body whose operands vary (see
/// ParallelVectors::Affine): records its form in `plan`; returns false
/// when its result does not vary.
static bool classifyIndex(Operation &op, Block &body, ParallelVectors &plan) {
  Value iv = body.getArguments().back();
  auto affineOf = [&](Value v) -> std::optional<ParallelVectors::Affine> {
    if (v == iv)
      return ParallelVectors::Affine{};
    auto it = plan.affine.find(v);
    if (it == plan.affine.end())
      return std::nullopt;
    return it->second;
  };
  Value result = op.getNumResults() == 1 ? op.getResult(0) : Value();
  if (!result || !result.getType().isIndex())
    return true;
  if (auto add = dyn_cast<arith::AddIOp>(op)) {
    for (auto [a, x] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
      std::optional<ParallelVectors::Affine> form = affineOf(a);
      if (form && form->divisor == 1 && !form->offset && !plan.isVarying(x) &&
          isHoistable(x, body)) {
        plan.affine[result] = ParallelVectors::Affine{x, 1};
        return true;
      }
    }
    return true;
  }
  bool isDivision = isa<arith::FloorDivSIOp, arith::DivUIOp>(op);
  bool isRemainder = isa<arith::RemUIOp, arith::RemSIOp>(op);
  if (!isDivision && !isRemainder)
    return true;
  std::optional<ParallelVectors::Affine> form = affineOf(op.getOperand(0));
  std::optional<int64_t> d = getPositiveConstant(op.getOperand(1));
  if (!form || form->divisor != 1 || !d || *d == 1)
    return true;
  // A constant offset must be a multiple already; others are tested.
  auto alignable = [&](int64_t multiple) {
    std::optional<int64_t> offset =
        form->offset ? getConstant(form->offset) : std::optional<int64_t>(0);
    return !offset || *offset % multiple == 0;
  };
  if (isDivision && *d % plan.width == 0 && alignable(plan.width)) {
    plan.uniform.insert(result);
    plan.alignedOffsets.push_back({form->offset, plan.width});
    return false;
  }
  if (plan.width % *d != 0)
    return true;
  if (isDivision) {
    plan.affine[result] = ParallelVectors::Affine{form->offset, *d};
  } else if ((isa<arith::RemUIOp>(op) || !form->offset) && alignable(*d)) {
    // remsi only of the induction variable itself, which is not negative.
    plan.cyclic[result] = *d;
    plan.alignedOffsets.push_back({form->offset, *d});
  }
  return true;
}

std::optional<ParallelVectors> mlir::tile::gpu_lowering::planParallelVectors(
    const KernelContext &k, OpBuilder &b, ParallelOp op, const Layout &loop) {
  Block &body = op.getBody().front();
  Value iv = body.getArguments().back();
  ParallelVectors plan;
  for (int64_t width = kMaxRun; width > 1 && plan.width == 1; width /= 2)
    if (succeeded(rescaleSlotRuns(loop, width)))
      plan.width = width;
  if (plan.width == 1)
    return std::nullopt;
  for (int64_t slot = 0, e = getSlotExtent(loop); slot < e; ++slot)
    if (isSlotUsed(loop, slot) != isSlotUsed(loop, slot - slot % plan.width))
      return std::nullopt;

  plan.varying.insert(iv);
  // The body's ops, and those of branches on a condition the run's
  // iterations share (a row mask: `if i < rows`), which run once per run.
  std::function<bool(Block &)> planBlock = [&](Block &block) -> bool {
    for (Operation &nested : block.without_terminator()) {
      if (auto branch = dyn_cast<scf::IfOp>(nested)) {
        if (branch.getNumResults() != 0 || !branch.getElseRegion().empty() ||
            plan.isVarying(branch.getCondition()) ||
            !planBlock(branch.getThenRegion().front()))
          return false;
        continue;
      }
      bool varies = llvm::any_of(nested.getOperands(),
                                 [&](Value v) { return plan.isVarying(v); });
      Value buffer;
      ValueRange indices;
      bool isStore = false;
      if (auto load = dyn_cast<LoadOp>(nested)) {
        buffer = load.getBuffer();
        indices = load.getIndices();
      } else if (auto store = dyn_cast<StoreOp>(nested)) {
        buffer = store.getBuffer();
        indices = store.getIndices();
        isStore = true;
      } else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(nested)) {
        // Adds into global memory whose old value is unused move in
        // vectors where the target adds vectors; a loop of other atomics
        // runs as written.
        if (!isAtomicAddOfVectors(k, atomic))
          return false;
        buffer = atomic.getMemref();
        indices = atomic.getIndices();
        isStore = true;
      } else if (nested.getNumRegions() != 0 || !isMemoryEffectFree(&nested)) {
        return false;
      } else if (varies && !classifyIndex(nested, body, plan)) {
        continue;
      }
      std::optional<ParallelVectors::Affine> form;
      if (buffer) {
        Value last = indices.back();
        if (last == iv)
          form = ParallelVectors::Affine{};
        else if (auto it = plan.affine.find(last); it != plan.affine.end())
          form = it->second;
        // Iterations that store to one element: left to the scalar order.
        if (isStore && ((form && form->divisor != 1) ||
                        !llvm::any_of(indices, [&](Value v) {
                          return plan.isVarying(v);
                        })))
          return false;
      }
      if (!varies)
        continue;
      plan.varying.insert(nested.getResults().begin(),
                          nested.getResults().end());
      if (!buffer || k.getFragment(buffer) || !form)
        continue;
      if (std::optional<ParallelVectors::Run> run =
              findRun(k, b, op.getLoc(), plan, buffer, indices, *form)) {
        if (auto atomic = dyn_cast<memref::AtomicRMWOp>(nested))
          run->chunk =
              std::min(run->chunk, k.codegen.getAtomicAddVectorWidth(
                                       k.target, atomic.getValue().getType()));
        plan.runs[&nested] = *run;
        plan.alignedOffsets.push_back(
            {run->index.offset, run->chunk * run->index.divisor});
      }
    }
    return true;
  };
  if (!planBlock(body))
    return std::nullopt;
  // Without a vector access of memory the scalar code is as good.
  if (plan.runs.empty())
    return std::nullopt;
  return plan;
}

/// `v` (hoistable) computed at `b`'s insertion point.
static Value hoist(OpBuilder &b, Value v, Block &body, IRMapping &mapping) {
  if (Value done = mapping.lookupOrNull(v))
    return done;
  Operation *def = v.getDefiningOp();
  if (!def || !body.getParentOp()->isAncestor(def))
    return v;
  for (Value operand : def->getOperands())
    hoist(b, operand, body, mapping);
  b.clone(*def, mapping);
  return mapping.lookup(v);
}

Value mlir::tile::gpu_lowering::buildParallelAlignment(
    const KernelContext &k, OpBuilder &b, ParallelOp op,
    const ParallelVectors &plan) {
  Location loc = op.getLoc();
  Block &body = op.getBody().front();
  IRMapping hoisted;
  Value all;
  auto conjoin = [&](Value ok) {
    all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
  };
  body.walk([&](Operation *nested) {
    auto it = plan.runs.find(nested);
    if (it == plan.runs.end())
      return;
    Value buffer = getAccessedBuffer(nested);
    if (!k.getShared(buffer))
      conjoin(areRowsAligned(b, loc, buffer, it->second.chunk));
  });
  for (auto [offset, multiple] : plan.alignedOffsets) {
    APInt constant;
    if (!offset)
      continue;
    if (matchPattern(offset, m_ConstantInt(&constant))) {
      assert(constant.getSExtValue() % multiple == 0 &&
             "the plan aligns constant offsets");
      continue;
    }
    conjoin(isMultipleOf(b, loc, hoist(b, offset, body, hoisted), multiple));
  }
  return all;
}

namespace {
/// Builds one run of iterations: the body once, on vectors.
class RunBuilder {
public:
  RunBuilder(const KernelContext &k, OpBuilder &b, ParallelOp op,
             const Layout &loop, const ParallelVectors &plan, int64_t slot)
      : k(k), b(b), loc(op.getLoc()), body(op.getBody().front()), loop(loop),
        plan(plan), slot(slot) {}

  LogicalResult build();

private:
  /// The ops of `block` (the body, or a branch of it) on the run.
  LogicalResult buildBlock(Block &block);
  VectorType vectorOf(Type type) const {
    return VectorType::get({plan.width}, type);
  }
  /// `v` as a vector of the run (a scalar is broadcast).
  Value vector(Value v);
  /// Lane `lane`'s value of `v`.
  Value lane(Value v, int64_t lane);
  Side memorySide(Value buffer);
  LogicalResult buildLoad(LoadOp load);
  LogicalResult buildStore(StoreOp store);
  /// An atomic add of a run in vectors, else lane by lane.
  void buildAtomic(memref::AtomicRMWOp atomic);
  /// Calls `write` with each chunk of a run access's value (`value` at
  /// `indices`) and the indices of its first element.
  void forEachChunk(const ParallelVectors::Run &run, ValueRange indices,
                    Value value, function_ref<void(ValueRange, Value)> write);
  void buildCompute(Operation &op);
  /// The fragment slot lane `lane` of the run reads or writes in `access`.
  FailureOr<int64_t> fragmentSlot(Operation *access,
                                  const FragmentStorage &fragment,
                                  ValueRange indices, int64_t lane);
  /// The run's indices of a run access: its first iteration's.
  SmallVector<Value> runIndex(ValueRange indices);
  /// The first iteration's value of an index computed from the induction
  /// variable (of any value: its scalar).
  Value laneZero(Value v);

  const KernelContext &k;
  OpBuilder &b;
  Location loc;
  Block &body;
  const Layout &loop;
  const ParallelVectors &plan;
  int64_t slot;
  /// Values the run's iterations share, and the body's values that differ
  /// between them, as vectors.
  IRMapping scalars;
  DenseMap<Value, Value> vectors;
  DenseMap<Value, Value> broadcasts;
  /// The innermost index of the run's first iteration.
  Value first;
  DenseMap<Value, Value> laneZeros;
};
} // namespace

Value RunBuilder::vector(Value v) {
  if (v == body.getArguments().back() && !vectors.count(v)) {
    // first, first + 1, ...
    VectorType type = vectorOf(v.getType());
    vectors[v] = arith::AddIOp::create(
        b, loc, vector::BroadcastOp::create(b, loc, type, first),
        arith::ConstantOp::create(b, loc,
                                  b.getIndexVectorAttr(llvm::to_vector(
                                      llvm::seq<int64_t>(0, plan.width)))));
  }
  if (plan.isVarying(v))
    return vectors.lookup(v);
  Value &broadcast = broadcasts[v];
  if (!broadcast) {
    Value scalar = scalars.lookupOrDefault(v);
    broadcast =
        vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), scalar);
  }
  return broadcast;
}

Value RunBuilder::lane(Value v, int64_t lane) {
  if (!plan.isVarying(v))
    return scalars.lookupOrDefault(v);
  if (v == body.getArguments().back())
    return lane == 0
               ? first
               : arith::AddIOp::create(b, loc, first, k.constant(b, loc, lane))
                     .getResult();
  return vector::ExtractOp::create(b, loc, vector(v), lane);
}

Side RunBuilder::memorySide(Value buffer) {
  Side side = describe(k, b, loc, buffer, {});
  side.offsets.assign(cast<ShapedType>(buffer.getType()).getRank(),
                      k.constant(b, loc, 0));
  return side;
}

FailureOr<int64_t> RunBuilder::fragmentSlot(Operation *access,
                                            const FragmentStorage &fragment,
                                            ValueRange indices, int64_t lane) {
  std::optional<int64_t> mapped = k.mapSlot(
      loop, slot + lane, fragment.layout,
      getFragmentAccessDims(access->getParentOfType<ParallelOp>(), indices));
  if (mapped)
    return *mapped;
  return access->emitOpError()
         << (isa<LoadOp>(access) ? "reads" : "writes")
         << " a fragment element that the thread running this iteration "
            "does not hold in a fixed slot";
}

SmallVector<Value> RunBuilder::runIndex(ValueRange indices) {
  SmallVector<Value> index;
  for (Value v : indices.drop_back())
    index.push_back(scalars.lookupOrDefault(v));
  index.push_back(laneZero(indices.back()));
  return index;
}

Value RunBuilder::laneZero(Value v) {
  if (v == body.getArguments().back())
    return first;
  if (!plan.isVarying(v) && !plan.uniform.contains(v))
    return scalars.lookupOrDefault(v);
  if (Value done = laneZeros.lookup(v))
    return done;
  // An index computed from the induction variable: its ops again, on the
  // first iteration's values.
  Operation *def = v.getDefiningOp();
  IRMapping operands;
  for (Value operand : def->getOperands())
    operands.map(operand, laneZero(operand));
  Operation *clone = b.clone(*def, operands);
  Value result = clone->getResult(cast<OpResult>(v).getResultNumber());
  laneZeros[v] = result;
  return result;
}

LogicalResult RunBuilder::buildLoad(LoadOp load) {
  Value buffer = load.getBuffer();
  SmallVector<Value> indices;
  for (Value v : load.getIndices())
    indices.push_back(scalars.lookupOrDefault(v));
  bool varies = plan.isVarying(load.getResult());
  int64_t lanes = varies ? plan.width : 1;
  SmallVector<Value> elements;
  if (auto it = plan.runs.find(load.getOperation()); it != plan.runs.end()) {
    const ParallelVectors::Run &run = it->second;
    Side side = memorySide(buffer);
    SmallVector<Value> index = runIndex(load.getIndices());
    Value result;
    int64_t count = plan.width / run.index.divisor;
    for (int64_t at = 0; at < count; at += run.chunk) {
      SmallVector<Value> from(index);
      from.back() =
          arith::AddIOp::create(b, loc, from.back(), k.constant(b, loc, at));
      Value chunk =
          readVector(k, b, loc, side, from, run.chunk, load.getPadAttr());
      // Appended to the chunks before it.
      result = result
                   ? vector::ShuffleOp::create(
                         b, loc, result, chunk,
                         llvm::to_vector(llvm::seq<int64_t>(0, at + run.chunk)))
                   : chunk;
    }
    // Each element once per iteration that reads it.
    if (run.index.divisor != 1)
      result = vector::ShuffleOp::create(
          b, loc, result, result,
          llvm::map_to_vector(
              llvm::seq<int64_t>(0, plan.width),
              [&](int64_t l) { return l / run.index.divisor; }));
    vectors[load.getResult()] = result;
    return success();
  }
  const FragmentStorage *fragment = k.getFragment(buffer);
  SmallVector<unsigned> dims;
  if (fragment)
    dims = getFragmentAccessDims(load->getParentOfType<ParallelOp>(),
                                 load.getIndices());
  for (int64_t l = 0; l < lanes; ++l) {
    SmallVector<Value> index;
    for (Value v : load.getIndices())
      index.push_back(lane(v, l));
    if (fragment) {
      FailureOr<int64_t> from =
          fragmentSlot(load, *fragment, load.getIndices(), l);
      if (failed(from))
        return failure();
      elements.push_back(fragment->load(
          b, loc, *from, uniformSlotOffset(b, loc, *fragment, index, dims)));
      continue;
    }
    Side side = memorySide(buffer);
    elements.push_back(readMemory(k, b, loc, side, index, load.getPadAttr()));
  }
  if (!varies)
    scalars.map(load.getResult(), elements.front());
  else
    vectors[load.getResult()] = vector::FromElementsOp::create(
        b, loc, vectorOf(load.getType()), elements);
  return success();
}

LogicalResult RunBuilder::buildStore(StoreOp store) {
  Value buffer = store.getBuffer();
  if (auto it = plan.runs.find(store.getOperation()); it != plan.runs.end()) {
    Side side = memorySide(buffer);
    forEachChunk(it->second, store.getIndices(), store.getValue(),
                 [&](ValueRange to, Value chunk) {
                   writeVector(k, b, loc, side, to, chunk);
                 });
    return success();
  }
  const FragmentStorage *fragment = k.getFragment(buffer);
  SmallVector<unsigned> dims;
  if (fragment)
    dims = getFragmentAccessDims(store->getParentOfType<ParallelOp>(),
                                 store.getIndices());
  for (int64_t l = 0; l < plan.width; ++l) {
    SmallVector<Value> index;
    for (Value v : store.getIndices())
      index.push_back(lane(v, l));
    Value value = lane(store.getValue(), l);
    if (fragment) {
      FailureOr<int64_t> to =
          fragmentSlot(store, *fragment, store.getIndices(), l);
      if (failed(to))
        return failure();
      fragment->store(b, loc, *to, value,
                      uniformSlotOffset(b, loc, *fragment, index, dims));
      continue;
    }
    Side side = memorySide(buffer);
    writeMemory(k, b, loc, side, index, value);
  }
  return success();
}

void RunBuilder::buildAtomic(memref::AtomicRMWOp atomic) {
  auto it = plan.runs.find(atomic.getOperation());
  if (it == plan.runs.end()) {
    buildCompute(*atomic);
    return;
  }
  Side side = memorySide(atomic.getMemref());
  forEachChunk(it->second, atomic.getIndices(), atomic.getValue(),
               [&](ValueRange to, Value chunk) {
                 atomicAddVector(k, b, loc, side, to, chunk);
               });
}

void RunBuilder::forEachChunk(const ParallelVectors::Run &run,
                              ValueRange indices, Value value,
                              function_ref<void(ValueRange, Value)> write) {
  SmallVector<Value> index = runIndex(indices);
  Value whole = vector(value);
  for (int64_t at = 0; at < plan.width; at += run.chunk) {
    SmallVector<Value> to(index);
    to.back() =
        arith::AddIOp::create(b, loc, to.back(), k.constant(b, loc, at));
    Value chunk = whole;
    if (run.chunk != plan.width)
      chunk = vector::ShuffleOp::create(
          b, loc, whole, whole,
          llvm::to_vector(llvm::seq<int64_t>(at, at + run.chunk)));
    write(to, chunk);
  }
}

void RunBuilder::buildCompute(Operation &op) {
  if (op.getNumResults() == 1 && plan.uniform.contains(op.getResult(0))) {
    scalars.map(op.getResult(0), laneZero(op.getResult(0)));
    return;
  }
  if (op.getNumResults() == 1) {
    if (auto it = plan.cyclic.find(op.getResult(0)); it != plan.cyclic.end()) {
      vectors[op.getResult(0)] = arith::ConstantOp::create(
          b, loc,
          b.getIndexVectorAttr(
              llvm::map_to_vector(llvm::seq<int64_t>(0, plan.width),
                                  [&](int64_t l) { return l % it->second; })));
      return;
    }
  }
  if (!llvm::any_of(op.getResults(),
                    [&](Value v) { return plan.isVarying(v); })) {
    b.clone(op, scalars);
    return;
  }
  if (isVectorArith(&op)) {
    OperationState state(loc, op.getName());
    for (Value operand : op.getOperands())
      state.addOperands(vector(operand));
    for (Type type : op.getResultTypes())
      state.addTypes(vectorOf(type));
    state.addAttributes(op.getAttrs());
    Operation *created = b.create(state);
    for (auto [from, to] : llvm::zip(op.getResults(), created->getResults()))
      vectors[from] = to;
    return;
  }
  // Anything else, lane by lane.
  SmallVector<SmallVector<Value>> results(op.getNumResults());
  for (int64_t l = 0; l < plan.width; ++l) {
    IRMapping lanes;
    for (Value operand : op.getOperands())
      lanes.map(operand, lane(operand, l));
    Operation *clone = b.clone(op, lanes);
    for (auto [i, result] : llvm::enumerate(clone->getResults()))
      results[i].push_back(result);
  }
  for (auto [from, elements] : llvm::zip(op.getResults(), results))
    vectors[from] = vector::FromElementsOp::create(
        b, loc, vectorOf(from.getType()), elements);
}

LogicalResult RunBuilder::build() {
  SmallVector<Value> index = k.fragmentIndex(b, loc, loop, slot);
  for (auto [iv, value] : llvm::zip(body.getArguments(), index))
    scalars.map(iv, value);
  first = index.back();
  return buildBlock(body);
}

LogicalResult RunBuilder::buildBlock(Block &block) {
  for (Operation &op : block.without_terminator()) {
    LogicalResult status = success();
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      // A condition the run shares (planParallelVectors): one branch.
      auto run = scf::IfOp::create(
          b, loc, scalars.lookupOrDefault(branch.getCondition()),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard inside(b);
      b.setInsertionPoint(run.thenBlock()->getTerminator());
      status = buildBlock(branch.getThenRegion().front());
    } else if (auto load = dyn_cast<LoadOp>(op))
      status = buildLoad(load);
    else if (auto store = dyn_cast<StoreOp>(op))
      status = buildStore(store);
    else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op))
      buildAtomic(atomic);
    else
      buildCompute(op);
    if (failed(status))
      return failure();
  }
  return success();
}

LogicalResult mlir::tile::gpu_lowering::buildVectorIterations(
    const KernelContext &k, OpBuilder &b, ParallelOp op, const Layout &loop,
    const ParallelVectors &plan) {
  Location loc = op.getLoc();
  for (int64_t slot = 0, e = getSlotExtent(loop); slot < e;
       slot += plan.width) {
    if (!isSlotUsed(loop, slot))
      continue;
    Value guard = k.ownsSlot(b, loc, loop, slot, /*firstCopyOnly=*/false);
    LogicalResult status = success();
    buildGuarded(b, loc, guard, [&](OpBuilder &inner) {
      status = RunBuilder(k, inner, op, loop, plan, slot).build();
    });
    if (failed(status))
      return failure();
  }
  return success();
}
