//===- TmaPipeline.cpp - Pipelines filled with TMA ------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The TMA version of a pipelined loop (sm_90): the host encodes one tensor
// map per producer (a 2-d tensor defined outside the kernel; one box per
// swizzle panel of its tile); in the kernel, thread 0 fills each stage with
// bulk tensor copies completing on the stage's `full` mbarrier, every
// thread waits on its phase, reads the stage and arrives on its `empty`
// mbarrier, on which the filling thread waits before refilling it. A wgmma
// gemm whose accumulator nothing else touches stays in flight across
// iterations. On by default on sm_90a; a target without `tma` among its
// features gets the cp.async pipeline only.
//
// Warp-specialized (the plan's `warpSpecialized` loop): the filling thread
// is the first of a producer warpgroup of its own (splitWarpSpecialized
// divides the launch; buildProducer is its loop), and each consumer warp
// gives a stage back once. With `tma-multicast`, blocks paired in a
// cluster load half of each shared tile for both and give stages back on
// both blocks' `empty` mbarriers. With a deferred gemm (attention's P x V,
// PipelinePlan::deferredGemm), the consumers issue it one iteration late,
// after the next iteration's first gemm, so that the softmax in between
// overlaps it (the copy into its A, P = S, moves to the start of that next
// iteration); the first iteration is peeled. In a persistent kernel
// (KernelContext::tileLoop) the producer walks the tiles too and both sides
// carry their place in the stages' ring from one tile's loop to the next.
//
//===----------------------------------------------------------------------===//

#include "GemmStrategies.h"
#include "PipelineStrategies.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

/// The CUtensorMapDataType of a TMA element type (by size: TMA moves
/// bytes), or -1.
int64_t getTensorMapDataType(Type type) {
  if (type.isF16())
    return 6;
  if (type.isBF16())
    return 9;
  if (type.isF32())
    return 7;
  if (type.isF64())
    return 8;
  switch (type.getIntOrFloatBitWidth()) {
  case 8:
    return 0;
  case 16:
    return 1;
  case 32:
    return 2;
  case 64:
    return 4;
  default:
    return -1;
  }
}

/// The element type tensor maps, their sources and their boxes are declared
/// with: upstream derives the map's data type from it and knows neither
/// 8-bit floats nor signless i8 (it gives an arbitrary data type for them),
/// so their bytes move as ui8.
Type getTmaElementType(Type type) {
  if (type.getIntOrFloatBitWidth() == 8)
    return IntegerType::get(type.getContext(), 8, IntegerType::Unsigned);
  return type;
}

/// How a TMA producer's tile is moved: `loads` boxes of `rows` x `columns`
/// elements, one per swizzle panel (or one for a row-major tile).
struct TmaBox {
  int64_t rows, columns, loads;
  int64_t swizzleBytes; // 0: none
};

std::optional<TmaBox> getTmaBox(const SharedBufferPlan &buffer) {
  ArrayRef<int64_t> shape = buffer.type.getShape();
  int64_t bytes = buffer.type.getElementTypeBitWidth() / 8;
  if (shape.size() != 2 || bytes == 0)
    return std::nullopt;
  TmaBox box{shape[0], shape[1], 1, 0};
  const Layout &layout = buffer.layout;
  if (std::optional<Swizzle> swizzle = layout.getSwizzle()) {
    std::optional<int64_t> mode = swizzle->getModeBytes(bytes);
    if (!mode)
      return std::nullopt;
    box.swizzleBytes = *mode;
    box.columns = *mode / bytes;
    box.loads = shape[1] / box.columns;
  } else if (layout != Layout::rowMajor(shape)) {
    return std::nullopt;
  }
  if (box.rows > 256 || box.columns > 256 || (box.columns * bytes) % 16 != 0)
    return std::nullopt;
  return box;
}

/// Whether `value` is defined outside `kernel` (the host can use it).
bool isOutside(Value value, Operation *kernel) {
  return !kernel->isAncestor(value.getParentRegion()->getParentOp());
}

/// The slice a TMA producer reads through, or null: a producer reads
/// either a 2-d tensor from outside the kernel, or a 2-d slice of one of
/// rank up to 5 that a unit-stride subview inside the kernel takes,
/// dropping leading unit dims only, with offsets and sizes of the kept
/// dims the host knows (attention's K[b, :, :]). The tensor map then
/// describes the whole tensor (the kept dims as the slice has them) and
/// the dropped dims' offsets are the box's outer coordinates. Failure when
/// neither holds.
FailureOr<memref::SubViewOp> getTmaSlice(CopyOp copy, Operation *kernel) {
  Value global = copy.getSource();
  if (isOutside(global, kernel))
    return memref::SubViewOp();
  auto slice = global.getDefiningOp<memref::SubViewOp>();
  if (!slice || !isOutside(slice.getSource(), kernel))
    return failure();
  int64_t rank = slice.getSourceType().getRank();
  if (rank < 3 || rank > 5 || slice.getType().getRank() != 2 ||
      !llvm::all_of(slice.getStaticStrides(),
                    [](int64_t s) { return s == 1; }))
    return failure();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  for (int64_t d = 0; d < rank; ++d)
    if (dropped.test(d) != (d < rank - 2))
      return failure();
  auto known = [&](OpFoldResult v) {
    return !isa<Value>(v) || isOutside(cast<Value>(v), kernel);
  };
  for (int64_t d = rank - 2; d < rank; ++d)
    if (!known(slice.getMixedOffsets()[d]) || !known(slice.getMixedSizes()[d]))
      return failure();
  return slice;
}

/// The host-side tensor a TMA producer's map describes: the copy's source,
/// or, through a slice, its whole tensor with the kept dims as the slice
/// has them.
Value getHostTensor(OpBuilder &b, Location loc, CopyOp copy,
                    memref::SubViewOp slice) {
  if (!slice)
    return copy.getSource();
  int64_t rank = slice.getSourceType().getRank();
  SmallVector<OpFoldResult> offsets, sizes;
  for (int64_t d = 0; d < rank - 2; ++d) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(
        memref::DimOp::create(b, loc, slice.getSource(), d).getResult());
  }
  for (int64_t d = rank - 2; d < rank; ++d) {
    offsets.push_back(slice.getMixedOffsets()[d]);
    sizes.push_back(slice.getMixedSizes()[d]);
  }
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, slice.getSource(), offsets, sizes,
                                   strides);
}

/// The mbarriers of a `stages`-stage TMA pipeline, set up by thread 0:
/// `full` i (one arrival, plus the bytes), `empty` i (`emptyCount`
/// arrivals). The stages may reuse memory other buffers used through the
/// generic proxy: it is fenced before the copy engine writes. Between
/// barriers of the whole block (`wholeBlock`, before a warp-specialized
/// block splits) or of the kernel's threads; of the whole cluster, whose
/// blocks arrive on each other's barriers, with `cluster`.
Value createStageBarriers(KernelContext &k, OpBuilder &b, Location loc,
                          int64_t stages, Value emptyCount, bool wholeBlock,
                          bool cluster) {
  MLIRContext *context = b.getContext();
  auto barrierType = nvgpu::MBarrierGroupType::get(
      context,
      gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup),
      2 * stages);
  Value barriers = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  if (wholeBlock)
    gpu::BarrierOp::create(b, loc);
  else
    k.barrier(b, loc);
  Value isLeader = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::eq, k.threadId, k.constant(b, loc, 0));
  scf::IfOp::create(b, loc, isLeader, [&](OpBuilder &then, Location l) {
    for (int64_t i = 0; i < 2 * stages; ++i) {
      Value count = i < stages ? k.constant(then, l, 1) : emptyCount;
      nvgpu::MBarrierInitOp::create(then, l, barriers, count,
                                    k.constant(then, l, i),
                                    /*predicate=*/Value());
    }
    NVVM::FenceProxyOp::create(
        then, l, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    if (cluster)
      NVVM::FenceMbarrierInitOp::create(then, l);
    scf::YieldOp::create(then, l);
  });
  if (cluster) {
    NVVM::ClusterArriveOp::create(b, loc, b.getUnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, b.getUnitAttr());
  } else if (wholeBlock) {
    gpu::BarrierOp::create(b, loc);
  } else {
    k.barrier(b, loc);
  }
  return barriers;
}

} // namespace

Operation *mlir::tile::gpu_lowering::splitWarpSpecialized(KernelContext &k,
                                                          OpBuilder &b,
                                                          Location loc) {
  const PipelinePlan &pipeline =
      k.plan.pipelines.find(k.plan.warpSpecialized)->second;
  bool clustered = k.plan.isClustered();
  // Consumers give a stage back one arrival per warp (and, multicasting,
  // one on the other block's barrier too).
  int64_t warps = k.threads / k.target.warpSize;
  Value emptyCount = k.constant(b, loc, warps);
  if (clustered) {
    Type i32 = b.getI32Type();
    Value clusterDim = NVVM::ClusterDim::create(b, loc, i32);
    k.multicast =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, clusterDim,
                              arith::ConstantIntOp::create(b, loc, i32, 2));
    k.clusterRank = NVVM::ClusterId::create(b, loc, i32);
    k.peerRank = arith::XOrIOp::create(
        b, loc, k.clusterRank, arith::ConstantIntOp::create(b, loc, i32, 1));
    emptyCount = arith::SelectOp::create(
        b, loc, k.multicast, k.constant(b, loc, 2 * warps),
        emptyCount);
  }
  k.producerBarriers =
      createStageBarriers(k, b, loc, pipeline.stages, emptyCount,
                          /*wholeBlock=*/true, /*cluster=*/clustered);
  if (k.plan.persistent) {
    // The consumers' first tile starts where a lone loop would: reading
    // stage 0, giving back stage s - 1 (none before the first), phases 0.
    {
      // In the kernel's entry block, where LLVM promotes it to registers.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(b.getInsertionBlock());
      k.pipelineState = memref::AllocaOp::create(
          b, loc, MemRefType::get({4}, b.getIndexType()));
    }
    // Named: an ArrayRef of a braced list in the range would outlive the
    // list (C++17 ends its life before the loop; GCC stored garbage).
    int64_t initial[] = {0, 0, pipeline.stages - 1, 0};
    for (auto [i, v] : llvm::enumerate(initial)) {
      Value init = k.constant(b, loc, v);
      memref::StoreOp::create(b, loc, init, k.pipelineState,
                              ValueRange{k.constant(b, loc, i)});
    }
  }
  // Registers: 64K per SM for the one block; the launch gives each thread
  // an equal share (8-register steps), the producer keeps 24 and the
  // consumers take what is left, up to 240.
  constexpr int64_t kRegisterFile = 65536, kProducerRegisters = 24;
  int64_t atLaunch = kRegisterFile / k.plan.getLaunchThreads() / 8 * 8;
  int64_t consumer = std::min<int64_t>(
      240, (kRegisterFile - KernelPlan::kProducerThreads * kProducerRegisters) /
               k.threads / 8 * 8);
  Value isConsumer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           k.threadId,
                                           k.constant(b, loc, k.threads));
  auto split = scf::IfOp::create(b, loc, isConsumer, /*withElseRegion=*/true);
  OpBuilder producer(split.elseBlock()->getTerminator());
  if (atLaunch > kProducerRegisters)
    NVVM::SetMaxRegisterOp::create(producer, loc, kProducerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
  OpBuilder consumers(split.thenBlock()->getTerminator());
  if (consumer > atLaunch)
    NVVM::SetMaxRegisterOp::create(consumers, loc, consumer,
                                   NVVM::SetMaxRegisterAction::increase);
  k.producerEnd = split.elseBlock()->getTerminator();
  Operation *consumersEnd = split.thenBlock()->getTerminator();
  if (clustered) {
    // No block leaves while the other may still arrive on its barriers:
    // the consumers wait for the whole cluster at the end (the producer
    // threads arrive as they finish).
    k.producerEnd = NVVM::ClusterArriveOp::create(producer, loc, UnitAttr());
    consumersEnd =
        NVVM::ClusterArriveOp::create(consumers, loc, consumers.getUnitAttr());
    NVVM::ClusterWaitOp::create(consumers, loc, consumers.getUnitAttr());
  }
  return consumersEnd;
}

/// Whether the TMA boxes of `copy` can be split between the two blocks of
/// a cluster pair.
bool mlir::tile::gpu_lowering::canMulticast(const KernelPlan &plan,
                                            CopyOp copy) {
  std::optional<TmaBox> box = getTmaBox(plan.shared.find(copy.getDest())->second);
  return box && box->loads % 2 == 0;
}

/// Whether `gemm`, in `loop`'s body, may run on while the loop goes on: a
/// wgmma reading A and B from shared memory into an f32 accumulator that
/// no other op of the loop touches (so only the next gemm, which the
/// hardware orders after it, and code after the loop read it). An f16
/// accumulator is packed and unpacked around each wgmma, which reads it.
bool mlir::tile::gpu_lowering::canStayInFlight(const KernelPlan &plan,
                                               PipelinedOp loop, GemmOp gemm) {
  const GemmPlan &gemmPlan = plan.gemms.find(gemm)->second;
  if (gemmPlan.instruction != GemmInstruction::Wgmma || !gemmPlan.aFromShared ||
      gemm.getClearAccum() ||
      !cast<FragmentType>(gemm.getC().getType()).getElementType().isF32())
    return false;
  return llvm::all_of(gemm.getC().getUsers(), [&](Operation *user) {
    return user == gemm || !loop->isAncestor(user);
  });
}

/// Whether `copy`, a producer of `loop`, can be a TMA load: a 2-d global
/// tensor defined outside the kernel (so that the host can describe it), or
/// a 2-d slice of one (getTmaSlice), into a row-major or swizzled tile.
bool mlir::tile::gpu_lowering::isTmaProducer(const KernelPlan &plan,
                                             PipelinedOp loop, CopyOp copy) {
  auto type = cast<MemRefType>(copy.getSource().getType());
  if (type.getRank() != 2 || getTensorMapDataType(type.getElementType()) < 0 ||
      failed(getTmaSlice(copy, loop->getParentOfType<KernelOp>())))
    return false;
  return getTmaBox(plan.shared.find(copy.getDest())->second).has_value();
}

namespace {

/// The TMA version of a pipelined loop: one thread fills each stage with
/// bulk tensor copies that complete on the stage's `full` mbarrier (with
/// the stage's byte count); every thread waits on it, reads the stage, and
/// arrives on the stage's `empty` mbarrier, on which the filling thread
/// waits before refilling it. Phases alternate each time a stage comes
/// round again; no block-wide barrier runs in the loop.
class TmaPipelineBuilder {
public:
  TmaPipelineBuilder(KernelContext &k, PatternRewriter &rewriter,
                     PipelinedOp loop, const PipelinePlan &plan)
      : k(k), rewriter(rewriter), loop(loop), plan(plan), loc(loop.getLoc()) {}

  LogicalResult build(OpBuilder &b);

private:
  /// Fills stage `stage` with iteration `iteration`'s tiles where `go`
  /// holds (always when null), after waiting for the stage's consumers
  /// unless `emptyParity` is null. `outside` maps the values from outside
  /// the loop that the tiles' origins use (a producer warpgroup's copies).
  void issue(OpBuilder &b, Value iteration, Value stage, Value emptyParity,
             Value go, const IRMapping &outside = IRMapping());
  /// Warp-specialized: the producer warpgroup's loop, in its block.
  LogicalResult buildProducer();
  /// A shared-memory pointer to mbarrier `index`.
  Value getBarrierPointer(OpBuilder &b, Location loc, Value index);
  /// Arrives on mbarrier `index` of the other block of the cluster pair.
  void arriveOnPeer(OpBuilder &b, Location loc, Value index);
  /// The stage after `stage` and its phase (flipped when the ring wraps).
  std::pair<Value, Value> advance(OpBuilder &b, Location loc, Value stage,
                                  Value phase);
  Value index(OpBuilder &b, int64_t v) { return k.constant(b, loc, v); }

  KernelContext &k;
  PatternRewriter &rewriter;
  PipelinedOp loop;
  const PipelinePlan &plan;
  Location loc;
  Value barriers;
  Value isLeader;
  int64_t stageBytes = 0;
};

void TmaPipelineBuilder::issue(OpBuilder &b, Value iteration, Value stage,
                               Value emptyParity, Value go,
                               const IRMapping &outside) {
  auto body = [&](OpBuilder &then, Location l) {
    int64_t stages = plan.stages;
    if (emptyParity) {
      Value ticks = index(then, 10000000);
      nvgpu::MBarrierTryWaitParityOp::create(
          then, l, barriers, emptyParity, ticks,
          arith::AddIOp::create(then, l, stage, index(then, stages)));
    }
    nvgpu::MBarrierArriveExpectTxOp::create(then, l, barriers,
                                            index(then, stageBytes), stage,
                                            /*predicate=*/Value());
    for (CopyOp copy : plan.producers) {
      // The tile's origin in this iteration.
      IRMapping mapping = outside;
      mapping.map(loop.getInductionVar(), iteration);
      SetVector<Operation *> slice = *getOffsetSlice(loop, copy);
      for (Operation *op : slice)
        then.clone(*op, mapping);
      auto resolve = [&](OpFoldResult offset) -> Value {
        if (auto value = dyn_cast<Value>(offset))
          return mapping.lookupOrDefault(value);
        return index(then, *getConstantIntValue(offset));
      };
      SmallVector<Value> origin =
          llvm::map_to_vector(copy.getMixedOffsets(), resolve);
      // Through a slice (the map describes more dims than the tile has),
      // the dropped dims' offsets follow, innermost first.
      auto descriptorType = cast<nvgpu::TensorMapDescriptorType>(
          k.tensorMaps.lookup(copy).second);
      int64_t rank = descriptorType.getTensor().getRank();
      SmallVector<Value> outer;
      if (rank > 2) {
        auto view = copy.getSource().getDefiningOp<memref::SubViewOp>();
        for (int64_t d = rank - 3; d >= 0; --d)
          outer.push_back(resolve(view.getMixedOffsets()[d]));
      }
      const SharedBufferPlan &buffer =
          k.plan.shared.find(copy.getDest())->second;
      TmaBox box = *getTmaBox(buffer);
      Type element = getTmaElementType(buffer.type.getElementType());
      int64_t bytes = element.getIntOrFloatBitWidth() / 8;
      SmallVector<int64_t> boxShape(outer.size(), 1);
      boxShape.append({box.rows, box.columns});
      auto boxType = MemRefType::get(
          boxShape, element, MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(then.getContext(),
                                     gpu::AddressSpace::Workgroup));
      Value bufferStart = index(then, buffer.offset);
      Value stageStart = arith::AddIOp::create(
          then, l, bufferStart,
          arith::MulIOp::create(then, l, stage,
                                index(then, buffer.stageElements * bytes)));
      // Box p: panel p of the stage's tile, through the tensor map; with
      // `mask`, to the same place in both blocks of the cluster pair.
      auto load = [&](OpBuilder &lb, Location ll, int64_t p, Value mask) {
        Value at = arith::AddIOp::create(
            lb, ll, stageStart, index(lb, p * box.rows * box.columns * bytes));
        Value dst = memref::ViewOp::create(lb, ll, boxType, k.dynamicShared,
                                           k.sharedByteOffset(lb, ll, at),
                                           ValueRange());
        Value column =
            arith::AddIOp::create(lb, ll, origin[1], index(lb, p * box.columns));
        // Coordinates innermost first, as the tensor map's dims.
        Value pointer = k.tensorMaps.lookup(copy).first;
        Value descriptor = UnrealizedConversionCastOp::create(
                               lb, ll, descriptorType, pointer)
                               .getResult(0);
        SmallVector<Value> coordinates{column, origin[0]};
        coordinates.append(outer);
        nvgpu::TmaAsyncLoadOp::create(lb, ll, dst, barriers, descriptor,
                                      coordinates, stage, mask,
                                      /*predicate=*/Value());
      };
      auto loadAll = [&](OpBuilder &lb, Location ll) {
        for (int64_t p = 0; p < box.loads; ++p)
          load(lb, ll, p, Value());
      };
      if (!k.multicast || !llvm::is_contained(plan.multicast, copy)) {
        loadAll(then, l);
        continue;
      }
      // A shared tile: when the pair multicasts, each block loads every
      // other box for both (its rank picks which).
      auto shared = scf::IfOp::create(then, l, k.multicast,
                                      /*withElseRegion=*/true);
      OpBuilder alone = OpBuilder::atBlockTerminator(shared.elseBlock());
      loadAll(alone, l);
      OpBuilder pair = OpBuilder::atBlockTerminator(shared.thenBlock());
      Value both = arith::ConstantIntOp::create(pair, l, pair.getI16Type(), 3);
      for (int64_t p = 0; p < box.loads; ++p) {
        Value mine = arith::CmpIOp::create(
            pair, l, arith::CmpIPredicate::eq, k.clusterRank,
            arith::ConstantIntOp::create(pair, l, pair.getI32Type(), p % 2));
        scf::IfOp::create(pair, l, mine, [&](OpBuilder &mb, Location ml) {
          load(mb, ml, p, both);
          scf::YieldOp::create(mb, ml);
        });
      }
    }
  };
  if (!go)
    return body(b, loc);
  scf::IfOp::create(b, loc, go, [&](OpBuilder &then, Location l) {
    body(then, l);
    scf::YieldOp::create(then, l);
  });
}

std::pair<Value, Value> TmaPipelineBuilder::advance(OpBuilder &b, Location l,
                                                    Value stage, Value phase) {
  Value plusOne = arith::AddIOp::create(b, l, stage, index(b, 1));
  Value wraps = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, plusOne,
                                      index(b, plan.stages));
  return {arith::SelectOp::create(b, l, wraps, index(b, 0), plusOne),
          arith::XOrIOp::create(b, l, phase, wraps)};
}

Value TmaPipelineBuilder::getBarrierPointer(OpBuilder &b, Location l,
                                            Value index) {
  Value address = nvgpu::MBarrierGetOp::create(b, l, b.getI32Type(), barriers,
                                               index);
  return LLVM::IntToPtrOp::create(
      b, l,
      LLVM::LLVMPointerType::get(
          b.getContext(),
          static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)),
      address);
}

void TmaPipelineBuilder::arriveOnPeer(OpBuilder &b, Location l,
                                      Value index) {
  MLIRContext *context = b.getContext();
  Value local = getBarrierPointer(b, l, index);
  Value remote = NVVM::MapaOp::create(
      b, l,
      LLVM::LLVMPointerType::get(
          context,
          static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster)),
      local, k.peerRank);
  // Release at CTA scope, as CUTLASS's cluster barriers do: the stage's
  // readers (wgmma) are done, and a cluster-scope release would fence every
  // arrival (a MEMBAR stall per warp and stage).
  NVVM::MBarrierArriveOp::create(
      b, l, /*res=*/Type(), remote, /*count=*/Value(),
      NVVM::MemScopeKindAttr::get(context, NVVM::MemScopeKind::CTA));
}

/// The producer warpgroup's first thread, while the host found the
/// tensors aligned (the consumers run the TMA version then), computes the
/// loop's bounds and fills every iteration's stage in turn, waiting for the
/// consumers to give it back first (a stage's first wait, on parity 1 of a
/// fresh mbarrier, passes at once).
LogicalResult TmaPipelineBuilder::buildProducer() {
  OpBuilder b(k.producerEnd);
  Value go = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            k.launchThreadId, index(b, k.threads)),
      k.tmaReady.lookup(loop));
  auto guard = scf::IfOp::create(b, loc, go, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  FailureOr<SetVector<Operation *>> setup =
      getProducerSetup(loop, plan.producers, *loop->getParentRegion());
  if (failed(setup))
    return loop.emitOpError("internal error: the producer warpgroup cannot "
                            "compute the loop's tiles");
  // One tile's loop, from ring position (stage, phase); returns the
  // position after it.
  auto fillTile = [&](OpBuilder &tb, IRMapping &outside,
                      ValueRange position) -> ValueRange {
    for (Operation *op : *setup)
      tb.clone(*op, outside);
    return scf::ForOp::create(
               tb, loc, outside.lookupOrDefault(loop.getLower()),
               outside.lookupOrDefault(loop.getUpper()),
               outside.lookupOrDefault(loop.getStep()), position,
               [&](OpBuilder &nb, Location l, Value iv, ValueRange carried) {
                 Value stage = carried[0], phase = carried[1];
                 Value emptyParity = arith::XOrIOp::create(
                     nb, l, phase,
                     arith::ConstantIntOp::create(nb, l, nb.getI1Type(), true));
                 issue(nb, iv, stage, emptyParity, /*go=*/Value(), outside);
                 auto [next, nextPhase] = advance(nb, l, stage, phase);
                 scf::YieldOp::create(nb, l, ValueRange{next, nextPhase});
               })
        .getResults();
  };
  SmallVector<Value> start{
      index(b, 0), arith::ConstantIntOp::create(b, loc, b.getI1Type(), false)};
  auto tiles = cast_if_present<scf::ForOp>(k.tileLoop);
  if (!tiles) {
    IRMapping outside;
    fillTile(b, outside, start);
    return success();
  }
  // Persistent: the consumers' tiles in their order, the ring going on
  // from one tile to the next.
  scf::ForOp::create(
      b, loc, tiles.getLowerBound(), tiles.getUpperBound(), tiles.getStep(),
      start, [&](OpBuilder &tb, Location l, Value tile, ValueRange carried) {
        IRMapping outside;
        outside.map(tiles.getInductionVar(), tile);
        scf::YieldOp::create(tb, l, fillTile(tb, outside, carried));
      });
  return success();
}

LogicalResult TmaPipelineBuilder::build(OpBuilder &b) {
  int64_t stages = plan.stages;
  Value lower = loop.getLower(), upper = loop.getUpper(),
        step = loop.getStep();
  for (CopyOp copy : plan.producers) {
    const SharedBufferPlan &buffer = k.plan.shared.find(copy.getDest())->second;
    stageBytes += buffer.stageElements *
                  (buffer.type.getElementTypeBitWidth() / 8);
  }
  MLIRContext *context = b.getContext();
  bool specialized = k.plan.warpSpecialized == loop.getOperation();
  if (specialized) {
    barriers = k.producerBarriers;
    if (failed(buildProducer()))
      return failure();
  } else {
    isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                     k.threadId, index(b, 0));
    barriers = createStageBarriers(k, b, loc, stages,
                                   k.constant(b, loc, k.threads),
                                   /*wholeBlock=*/false, /*cluster=*/false);
    // Prologue: iterations 0 .. s-2 into stages 0 .. s-2 (first fills: no
    // consumer to wait for).
    for (int64_t i = 0; i + 1 < stages; ++i) {
      Value iteration = arith::AddIOp::create(
          b, loc, lower, arith::MulIOp::create(b, loc, step, index(b, i)));
      Value valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          iteration, upper);
      Value stage = index(b, i);
      issue(b, iteration, stage, Value(),
            arith::AndIOp::create(b, loc, isLeader, valid));
    }
  }

  // Carried: the stage iteration j reads and its `full` phase, the stage it
  // fills for iteration j + s - 1 and the phase of that fill (the k-th fill
  // of a stage waits for the consumers' k-th arrival, parity k - 1).
  auto i1 = [&](OpBuilder &nb, bool v) -> Value {
    return arith::ConstantIntOp::create(nb, loc, nb.getI1Type(), v);
  };
  auto waitFull = [&](OpBuilder &wb, Value phase, Value stage) {
    nvgpu::MBarrierTryWaitParityOp::create(wb, loc, barriers, phase,
                                           index(wb, 10000000), stage);
    // Each thread leaves the wait on its own; warp-wide instructions
    // (wgmma is .sync.aligned) need the warp converged again.
    NVVM::SyncWarpOp::create(
        wb, loc, arith::ConstantIntOp::create(wb, loc, wb.getI32Type(), -1));
  };
  SmallVector<Value> carriedInit = {index(b, 0), i1(b, false),
                                    index(b, stages - 1), i1(b, false)};
  // Persistent and warp-specialized: where the last tile left the ring.
  Value state = specialized ? k.pipelineState : Value();
  if (state)
    for (int64_t i = 0; i < 4; ++i) {
      Value v = memref::LoadOp::create(b, loc, state,
                                       ValueRange{index(b, i)});
      carriedInit[i] = i % 2 ? arith::CmpIOp::create(
                                   b, loc, arith::CmpIPredicate::ne, v,
                                   index(b, 0))
                             : v;
    }
  SmallVector<Value> initial = carriedInit;
  Value loopLower = lower;
  // FlashAttention-3's intra-warpgroup overlap (plan.deferredGemm): the
  // loop issues the last gemm G2 of iteration j - 1 right after G1 of
  // iteration j, so iteration 0 (which has no G2 to issue) is peeled: it
  // runs before the loop, without G2, and the loop starts at iteration 1.
  bool deferred = specialized && plan.deferredGemm;
  // Whether the loop runs at all (the peel's and the ring state's guard).
  Value ran, peelStage;
  if (deferred || state)
    ran =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lower, upper);
  Block *peeled = nullptr;
  if (deferred) {
    auto peel = scf::IfOp::create(b, loc, ran, /*withElseRegion=*/false);
    OpBuilder pb(peel.thenBlock()->getTerminator());
    peelStage = carriedInit[0];
    waitFull(pb, carriedInit[1], carriedInit[0]);
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), lower);
    for (Operation &op : loop.getBody().front()) {
      auto copy = dyn_cast<CopyOp>(op);
      if (&op == plan.deferredGemm || &op == plan.deferredConvert ||
          llvm::is_contained(plan.deferredWith, &op) ||
          (copy && llvm::is_contained(plan.producers, copy)))
        continue;
      pb.clone(op, mapping);
    }
    k.recordClones(mapping);
    peeled = peel.thenBlock();
    auto [readStage, readPhase] =
        advance(b, loc, carriedInit[0], carriedInit[1]);
    auto [writeStage, writePhase] =
        advance(b, loc, carriedInit[2], carriedInit[3]);
    carriedInit = {readStage, readPhase, writeStage, writePhase};
    loopLower = arith::AddIOp::create(b, loc, lower, step);
  }
  // With the conversion moved (plan.deferredConvert), G2 of iteration j - 1
  // is waited for at the start of iteration j + 1, before the conversion
  // rewrites its A: the whole softmax in between overlaps it (ptxas moves
  // a wait at the end of the body up into the softmax, but not across the
  // back edge). The stage it read is given back there: carried, with
  // whether there is one (not in the first iteration).
  bool waitAtTop = deferred && plan.deferredConvert;
  if (waitAtTop)
    carriedInit.append({index(b, 0), i1(b, false)});
  auto forOp = scf::ForOp::create(
      b, loc, loopLower, upper, step, carriedInit,
      [&](OpBuilder &nb, Location l, Value, ValueRange carried) {
        auto [readStage, readPhase] = advance(nb, l, carried[0], carried[1]);
        auto [writeStage, writePhase] =
            advance(nb, l, carried[2], carried[3]);
        SmallVector<Value> next{readStage, readPhase, writeStage, writePhase};
        if (waitAtTop)
          next.append({carried[2], i1(nb, true)});
        scf::YieldOp::create(nb, l, next);
      });
  OpBuilder::InsertionGuard guard(b);
  Operation *end = forOp.getBody()->getTerminator();
  Operation *firstOfYield = end->getOperand(0).getDefiningOp();
  // The yield's operands are computed at the end of the body; the body
  // goes before them.
  for (Value operand : end->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && def->getBlock() == forOp.getBody() &&
        def->isBeforeInBlock(firstOfYield))
      firstOfYield = def;
  b.setInsertionPoint(firstOfYield);
  Value iv = forOp.getInductionVar();
  Value readStage = forOp.getRegionIterArg(0);
  Value readPhase = forOp.getRegionIterArg(1);
  Value writeStage = forOp.getRegionIterArg(2);
  Value writePhase = forOp.getRegionIterArg(3);

  // With gemms left in flight, the stage to refill is given back only at
  // the end of the iteration: fill it there (the producer warpgroup fills
  // the stages of a warp-specialized loop).
  bool async = !plan.asyncGemms.empty();
  auto refill = [&](OpBuilder &rb) {
    if (specialized)
      return;
    Value ahead = arith::AddIOp::create(
        rb, loc, iv,
        arith::MulIOp::create(rb, loc, step, index(rb, stages - 1)));
    Value valid = arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::slt,
                                        ahead, upper);
    Value emptyParity =
        arith::XOrIOp::create(rb, loc, writePhase, i1(rb, true));
    issue(rb, ahead, writeStage, emptyParity,
          arith::AndIOp::create(rb, loc, isLeader, valid));
  };
  if (!async)
    refill(b);
  waitFull(b, readPhase, readStage);

  auto release = [&](OpBuilder &rb, Value stage) {
    Value empty = arith::AddIOp::create(rb, loc, stage, index(rb, stages));
    auto arrive = [&](OpBuilder &ab) {
      nvgpu::MBarrierArriveOp::create(
          ab, loc, nvgpu::MBarrierTokenType::get(context), barriers, empty);
    };
    if (!specialized)
      return arrive(rb);
    // One arrival per warp (its lanes are done with the stage), on this
    // block's barrier and, multicasting, on the other block's.
    NVVM::SyncWarpOp::create(
        rb, loc, arith::ConstantIntOp::create(rb, loc, rb.getI32Type(), -1));
    Value lane = arith::RemUIOp::create(rb, loc, k.threadId,
                                        index(rb, k.target.warpSize));
    Value first = arith::CmpIOp::create(rb, loc, arith::CmpIPredicate::eq,
                                        lane, index(rb, 0));
    scf::IfOp::create(rb, loc, first, [&](OpBuilder &then, Location l) {
      arrive(then);
      if (k.multicast)
        scf::IfOp::create(then, l, k.multicast, [&](OpBuilder &remote,
                                                   Location rl) {
          arriveOnPeer(remote, rl, empty);
          scf::YieldOp::create(remote, rl);
        });
      scf::YieldOp::create(then, l);
    });
  };
  // The end of the iteration, built before the body moves in (it reads the
  // producers' offsets): with gemms in flight, the previous iteration's are
  // done once at most this iteration's are, and their stage - the one to
  // refill - goes back.
  Operation *bodyEnd = firstOfYield;
  if (async) {
    auto wait = NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
    Value notFirst =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, iv, lower);
    scf::IfOp::create(b, loc, notFirst, [&](OpBuilder &then, Location l) {
      release(then, writeStage);
      scf::YieldOp::create(then, l);
    });
    refill(b);
    bodyEnd = wait;
  }

  // Lowers `block` reading the producers' buffers at `stage`, with `inFlight`
  // gemms issued but not waited for.
  SmallVector<Value> buffers;
  for (CopyOp copy : plan.producers)
    buffers.push_back(copy.getDest());
  auto lowerAt = [&](Block &block, Value stage,
                     ArrayRef<Operation *> inFlight) {
    OpBuilder::InsertionGuard atStart(b);
    Operation *def = stage.getDefiningOp();
    if (def && def->getBlock() == &block)
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(&block);
    for (Value buffer : buffers) {
      SharedStorage &storage = k.shared[buffer];
      storage.stageOffset =
          arith::MulIOp::create(b, loc, stage, index(b, storage.stageElements));
    }
    k.asyncGemms.insert(inFlight.begin(), inFlight.end());
    LogicalResult status = k.lowerBlock(block, rewriter);
    k.asyncGemms.clear();
    for (Value buffer : buffers)
      k.shared[buffer].stageOffset = Value();
    return status;
  };

  // Waits for the deferred gemm in flight and gives back its stage
  // `stage` (where `valid` holds, unless it is null).
  auto releaseLastGemm = [&](OpBuilder &rb, Value stage, Value valid) {
    waitForWgmma(rb, loc, 0,
                 *k.getFragment(cast<GemmOp>(plan.deferredGemm).getC()));
    buildGuarded(rb, loc, valid,
                 [&](OpBuilder &then) { release(then, stage); });
  };
  // The last iteration's G2 follows the loop (cloned before the body
  // moves into it).
  scf::IfOp lastIf;
  if (deferred) {
    OpBuilder::InsertionGuard afterLoop(b);
    b.setInsertionPointAfter(forOp);
    if (waitAtTop)
      releaseLastGemm(b, forOp.getResult(4), forOp.getResult(5));
    lastIf = scf::IfOp::create(b, loc, ran, /*withElseRegion=*/false);
    b.setInsertionPoint(lastIf.thenBlock()->getTerminator());
    IRMapping mapping;
    if (plan.deferredConvert)
      b.clone(*plan.deferredConvert, mapping);
    for (Operation *op : plan.deferredWith)
      b.clone(*op, mapping);
    b.clone(*plan.deferredGemm, mapping);
    k.recordClones(mapping);
    release(b, forOp.getResult(2));
  }

  rewriter.inlineBlockBefore(&loop.getBody().front(), bodyEnd,
                             ValueRange{iv});
  for (CopyOp copy : plan.producers)
    rewriter.eraseOp(copy);
  SmallVector<Operation *> inFlight(plan.asyncGemms);
  if (deferred) {
    // In the loop: G2 of iteration j - 1 (reading the stage j - 1 read)
    // right after G1; wait_group 1 then waits for G1 alone, and G2 is
    // waited for - and stage j - 1 given back - only before the first op
    // that touches its operands: the ops in between run while the tensor
    // cores do G2.
    auto first = cast<GemmOp>(plan.deferredAfter);
    auto last = cast<GemmOp>(plan.deferredGemm);
    b.setInsertionPointAfter(first);
    auto issue = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
    Block *issueBlock = b.createBlock(&issue.getRegion());
    scf::YieldOp::create(b, loc);
    for (Operation *op : plan.deferredWith)
      op->moveBefore(issueBlock->getTerminator());
    last->moveBefore(issueBlock->getTerminator());
    // Before the wait for the stage: the conversion overlaps it.
    if (plan.deferredConvert)
      plan.deferredConvert->moveBefore(&forOp.getBody()->front());
    b.setInsertionPointAfter(issue);
    waitForWgmma(b, loc, 1, *k.getFragment(first.getC()));
    if (waitAtTop) {
      b.setInsertionPoint(plan.deferredConvert);
      releaseLastGemm(b, forOp.getRegionIterArg(4), forOp.getRegionIterArg(5));
    } else {
      b.setInsertionPoint(plan.deferredWait ? plan.deferredWait : bodyEnd);
      releaseLastGemm(b, writeStage, /*valid=*/Value());
    }
    if (failed(lowerAt(*issueBlock, writeStage, {last})) ||
        failed(lowerAt(*peeled, peelStage, {})))
      return failure();
    inFlight.push_back(first);
  }
  if (failed(lowerAt(*forOp.getBody(), readStage, inFlight)))
    return failure();
  if (!async && !deferred) {
    b.setInsertionPoint(firstOfYield);
    release(b, readStage);
  }
  if (deferred && failed(lowerAt(*lastIf.thenBlock(), forOp.getResult(2), {})))
    return failure();

  // Every filled stage was consumed (and every gemm finished); the buffers
  // may be reused after a barrier.
  b.setInsertionPointAfter(deferred ? lastIf.getOperation()
                                    : forOp.getOperation());
  if (async)
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  if (state) {
    // The next tile goes on from here. Its stages are filled meanwhile:
    // the last one read goes back too (the loop gives each back one
    // iteration late), and without a deferred gemm nothing else does.
    if (async && !deferred)
      buildGuarded(b, loc, ran,
                   [&](OpBuilder &then) { release(then, forOp.getResult(2)); });
    for (int64_t i = 0; i < 4; ++i) {
      Value v =
          arith::SelectOp::create(b, loc, ran, forOp.getResult(i), initial[i]);
      if (i % 2)
        v = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
      memref::StoreOp::create(b, loc, v, state, ValueRange{index(b, i)});
    }
  }
  k.barrier(b, loc);
  if (!specialized && loop->getParentOfType<LoopLikeOpInterface>()) {
    // The loop may run again (in a loop, or a persistent kernel's next
    // tile) and set its mbarriers up anew, after a barrier: they are
    // invalidated first.
    buildGuarded(b, loc, isLeader, [&](OpBuilder &then) {
      for (int64_t i = 0; i < 2 * stages; ++i)
        NVVM::MBarrierInvalOp::create(
            then, loc, getBarrierPointer(then, loc, index(then, i)));
    });
  }
  return success();
}

} // namespace

LogicalResult mlir::tile::gpu_lowering::buildTmaPipeline(
    KernelContext &k, PatternRewriter &rewriter, PipelinedOp loop,
    const PipelinePlan &plan, OpBuilder &b) {
  return TmaPipelineBuilder(k, rewriter, loop, plan).build(b);
}

/// A TMA store's box: the tile's rows, one 128-byte swizzle panel wide.
static constexpr int64_t kTmaStoreSwizzleBytes = 128;

bool mlir::tile::gpu_lowering::isTmaStore(const KernelPlan &plan, CopyOp copy) {
  if (!plan.persistent || !plan.target.has(Feature::TmaStore) ||
      !plan.target.has(Feature::Tma) || !plan.fragments.count(copy.getSource()))
    return false;
  auto type = dyn_cast<MemRefType>(copy.getDest().getType());
  if (!type || type.getRank() != 2 ||
      getTensorMapDataType(type.getElementType()) < 0 ||
      !isOutside(copy.getDest(), copy->getParentOfType<KernelOp>()))
    return false;
  ArrayRef<int64_t> shape =
      cast<ShapedType>(copy.getTile().getType()).getShape();
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  return shape.size() == 2 && shape[0] <= 256 && bytes > 0 &&
         (shape[1] * bytes) % kTmaStoreSwizzleBytes == 0 &&
         Swizzle::forMode(kTmaStoreSwizzleBytes, bytes).has_value();
}

/// The tensor map type of `copy`'s TMA stores: boxes of the tile's rows
/// by one swizzle panel.
static nvgpu::TensorMapDescriptorType getTmaStoreMapType(CopyOp copy) {
  MLIRContext *context = copy.getContext();
  Type element = cast<MemRefType>(copy.getDest().getType()).getElementType();
  int64_t rows = cast<ShapedType>(copy.getTile().getType()).getShape()[0];
  int64_t panel = kTmaStoreSwizzleBytes / (element.getIntOrFloatBitWidth() / 8);
  return nvgpu::TensorMapDescriptorType::get(
      context,
      MemRefType::get(
          {rows, panel}, getTmaElementType(element),
          MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup)),
      nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
      nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
}

void mlir::tile::gpu_lowering::emitTmaStores(const KernelContext &k,
                                             OpBuilder &b, Location loc,
                                             CopyOp copy, int64_t scratchOffset,
                                             ValueRange origin) {
  CopyOp planned = cast<CopyOp>(k.getPlanned(copy));
  auto mapType = getTmaStoreMapType(planned);
  MemRefType boxType = mapType.getTensor();
  int64_t rows = boxType.getShape()[0], panel = boxType.getShape()[1];
  int64_t columns = cast<ShapedType>(copy.getTile().getType()).getShape()[1];
  int64_t boxBytes = rows * panel * boxType.getElementTypeBitWidth() / 8;
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       k.threadId, k.constant(b, loc, 0));
  buildGuarded(b, loc, leader, [&](OpBuilder &then) {
    Value descriptor =
        UnrealizedConversionCastOp::create(then, loc, mapType,
                                           k.tensorMaps.lookup(planned).first)
            .getResult(0);
    for (int64_t p = 0; p < columns / panel; ++p) {
      Value box = memref::ViewOp::create(
          then, loc, boxType, k.dynamicShared,
          k.sharedByteOffset(
              then, loc, k.constant(then, loc, scratchOffset + p * boxBytes)),
          ValueRange());
      // Coordinates innermost first; TMA drops what falls outside the
      // tensor.
      Value column = arith::AddIOp::create(then, loc, origin[1],
                                           k.constant(then, loc, p * panel));
      nvgpu::TmaAsyncStoreOp::create(then, loc, box, descriptor,
                                     ValueRange{column, origin[0]},
                                     /*predicate=*/Value());
    }
    // Left in flight: waitForTmaStoreReads before the scratch is written
    // again and at the kernel's end.
    NVVM::CpAsyncBulkCommitGroupOp::create(then, loc);
  });
}

void mlir::tile::gpu_lowering::waitForTmaStoreReads(const KernelContext &k,
                                                    OpBuilder &b, Location loc,
                                                    Value threadId) {
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       threadId, k.constant(b, loc, 0));
  buildGuarded(b, loc, leader, [&](OpBuilder &then) {
    NVVM::CpAsyncBulkWaitGroupOp::create(then, loc, 0, then.getUnitAttr());
  });
}

/// Host code encoding `global`'s tensor map of `mapType` (its box shape,
/// swizzle and element type), as the plain pointer the kernel takes: the
/// GPU lowering's type converter does not know nvgpu's descriptor type.
static Value encodeTensorMap(const KernelContext &k, OpBuilder &b, Location loc,
                             Value global,
                             nvgpu::TensorMapDescriptorType mapType) {
  auto type = cast<MemRefType>(global.getType());
  Type element = mapType.getTensor().getElementType();
  // Upstream takes the map's data type from the source's element type:
  // the same tensor, seen as ui8 where it holds 8-bit floats.
  Value source = global;
  if (element != type.getElementType())
    source = UnrealizedConversionCastOp::create(
                 b, loc,
                 MemRefType::get(type.getShape(), element, type.getLayout(),
                                 type.getMemorySpace()),
                 global)
                 .getResult(0);
  Value unranked = memref::CastOp::create(
      b, loc, UnrankedMemRefType::get(element, 0), source);
  SmallVector<Value> boxSizes =
      llvm::map_to_vector(mapType.getTensor().getShape(), [&](int64_t size) {
        return k.constant(b, loc, size);
      });
  Value descriptor =
      nvgpu::TmaCreateDescriptorOp::create(b, loc, mapType, unranked, boxSizes);
  return UnrealizedConversionCastOp::create(
             b, loc, LLVM::LLVMPointerType::get(b.getContext()), descriptor)
      .getResult(0);
}

void mlir::tile::gpu_lowering::createTensorMaps(KernelContext &k, OpBuilder &b,
                                                Location loc, KernelOp kernel) {
  MLIRContext *context = b.getContext();
  auto pointerType = LLVM::LLVMPointerType::get(context);
  for (auto &[op, plan] : k.plan.pipelines) {
    if (!plan.tma)
      continue;
    // TMA reads rows from 16-byte aligned addresses, and the driver refuses
    // to encode a map of other tensors: the maps are encoded only when all
    // of the loop's tensors qualify (else the cp.async version runs).
    Operation *kernel = op->getParentOfType<KernelOp>();
    SmallVector<Value> tensors;
    for (CopyOp copy : plan.producers)
      tensors.push_back(
          getHostTensor(b, loc, copy, *getTmaSlice(copy, kernel)));
    Value ready;
    for (Value global : tensors) {
      int64_t bytes =
          cast<MemRefType>(global.getType()).getElementTypeBitWidth() / 8;
      Value aligned = areRowsAligned(b, loc, global, 16 / bytes);
      ready = ready ? arith::AndIOp::create(b, loc, ready, aligned).getResult()
                    : aligned;
    }
    k.tmaReady[op] = ready;

    SmallVector<Type> pointerTypes(plan.producers.size(), pointerType);
    auto encode = scf::IfOp::create(b, loc, pointerTypes, ready,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(encode.elseBlock());
    Value null = LLVM::ZeroOp::create(b, loc, pointerType);
    scf::YieldOp::create(b, loc,
                         SmallVector<Value>(plan.producers.size(), null));
    b.setInsertionPointToStart(encode.thenBlock());
    SmallVector<Value> maps;
    for (auto [i, global] : llvm::enumerate(tensors)) {
      CopyOp copy = plan.producers[i];
      auto type = cast<MemRefType>(global.getType());
      const SharedBufferPlan &buffer =
          k.plan.shared.find(copy.getDest())->second;
      TmaBox box = *getTmaBox(buffer);
      // A slice's dropped dims are boxes of one.
      SmallVector<int64_t> boxShape(type.getRank() - 2, 1);
      boxShape.append({box.rows, box.columns});
      auto swizzle =
          box.swizzleBytes == 128  ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
          : box.swizzleBytes == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
          : box.swizzleBytes == 32 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_32B
                                   : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
      auto descriptorType = nvgpu::TensorMapDescriptorType::get(
          context,
          MemRefType::get(boxShape, getTmaElementType(type.getElementType()),
                          MemRefLayoutAttrInterface(),
                          gpu::AddressSpaceAttr::get(
                              context, gpu::AddressSpace::Workgroup)),
          swizzle, nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      maps.push_back(encodeTensorMap(k, b, loc, global, descriptorType));
      k.tensorMaps[copy] = {Value(), descriptorType};
    }
    scf::YieldOp::create(b, loc, maps);
    for (auto [copy, map] : llvm::zip(plan.producers, encode.getResults()))
      k.tensorMaps[copy].first = map;
  }
  // TMA stores (in program order): a map each where the destination's rows
  // are 16-byte aligned, else the staged store's vectorized version runs.
  kernel.walk([&](CopyOp copy) {
    if (!k.plan.scratch.count(copy) || !isTmaStore(k.plan, copy))
      return;
    Value global = copy.getDest();
    auto type = cast<MemRefType>(global.getType());
    Value ready = areRowsAligned(b, loc, global,
                                 16 / (type.getElementTypeBitWidth() / 8));
    k.tmaReady[copy] = ready;
    auto mapType = getTmaStoreMapType(copy);
    auto encode = scf::IfOp::create(b, loc, TypeRange{pointerType}, ready,
                                    /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(encode.elseBlock());
    scf::YieldOp::create(b, loc,
                         ValueRange{LLVM::ZeroOp::create(b, loc, pointerType)});
    b.setInsertionPointToStart(encode.thenBlock());
    scf::YieldOp::create(
        b, loc, ValueRange{encodeTensorMap(k, b, loc, global, mapType)});
    k.tensorMaps[copy] = {encode.getResult(0), mapType};
  });
}
