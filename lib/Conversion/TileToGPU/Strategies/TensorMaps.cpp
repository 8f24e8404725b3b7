//===- TensorMaps.cpp - What TMA moves, and the host's tensor maps --------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The host's side of TMA. A TMA producer's tile moves in boxes, one per
// swizzle panel; its tensor map describes a 2-d tensor defined outside the
// kernel (or the whole tensor a 2-d slice is taken from), which the host
// encodes before the launch, where the tensors' rows are 16-byte aligned.
// A persistent kernel's output tiles have maps of their own (TMA stores).
// The kernel's copies through the maps are TmaCopies.cpp's.
//
//===----------------------------------------------------------------------===//

#include "PipelineStrategies.h"
#include "Tma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

/// A TMA store's box: the tile's rows, one 128-byte swizzle panel wide.
static constexpr int64_t kTmaStoreSwizzleBytes = 128;

/// The CUtensorMapDataType of a TMA element type (by size: TMA moves
/// bytes), or -1.
static int64_t getTensorMapDataType(Type type) {
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

Type mlir::tile::gpu_lowering::getTmaElementType(Type type) {
  if (type.getIntOrFloatBitWidth() == 8)
    return IntegerType::get(type.getContext(), 8, IntegerType::Unsigned);
  return type;
}

std::optional<TmaBox>
mlir::tile::gpu_lowering::getTmaBox(const SharedBufferPlan &buffer) {
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
static bool isOutside(Value value, Operation *kernel) {
  return !kernel->isAncestor(value.getParentRegion()->getParentOp());
}

/// The slice a TMA producer reads through, or null: a producer reads
/// either a 2-d tensor from outside the kernel, or a 2-d slice of one of
/// rank up to 5 that a unit-stride subview inside the kernel takes,
/// keeping the innermost dim and one other, with offsets and sizes of the
/// kept dims the host knows (attention's K[b, :, h, :]). The tensor map
/// then describes the whole tensor (the kept dims as the slice has them),
/// with boxes of one along the dropped dims, whose offsets are their
/// coordinates. Failure when neither holds.
static FailureOr<memref::SubViewOp> getTmaSlice(CopyOp copy,
                                                Operation *kernel) {
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
  if (dropped.test(rank - 1))
    return failure();
  auto known = [&](OpFoldResult v) {
    return !isa<Value>(v) || isOutside(cast<Value>(v), kernel);
  };
  for (int64_t d = 0; d < rank; ++d)
    if (!dropped.test(d) && (!known(slice.getMixedOffsets()[d]) ||
                             !known(slice.getMixedSizes()[d])))
      return failure();
  return slice;
}

/// The host-side tensor a TMA producer's map describes: the copy's source,
/// or, through a slice, its whole tensor with the kept dims as the slice
/// has them.
static Value getHostTensor(OpBuilder &b, Location loc, CopyOp copy,
                           memref::SubViewOp slice) {
  if (!slice)
    return copy.getSource();
  int64_t rank = slice.getSourceType().getRank();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<OpFoldResult> offsets, sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!dropped.test(d)) {
      offsets.push_back(slice.getMixedOffsets()[d]);
      sizes.push_back(slice.getMixedSizes()[d]);
      continue;
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(
        memref::DimOp::create(b, loc, slice.getSource(), d).getResult());
  }
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return memref::SubViewOp::create(b, loc, slice.getSource(), offsets, sizes,
                                   strides);
}

bool mlir::tile::gpu_lowering::isTmaLoad(const KernelPlan &plan, CopyOp copy) {
  auto type = cast<MemRefType>(copy.getSource().getType());
  if (type.getRank() != 2 || getTensorMapDataType(type.getElementType()) < 0 ||
      failed(getTmaSlice(copy, copy->getParentOfType<KernelOp>())))
    return false;
  return getTmaBox(plan.shared.find(copy.getDest())->second).has_value();
}

int64_t mlir::tile::gpu_lowering::getTmaRowDim(memref::SubViewOp slice) {
  if (!slice)
    return 0;
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  return dropped.flip().find_first();
}

bool mlir::tile::gpu_lowering::canMulticast(const KernelPlan &plan,
                                            CopyOp copy) {
  std::optional<TmaBox> box =
      getTmaBox(plan.shared.find(copy.getDest())->second);
  return box && box->loads % 2 == 0;
}

bool mlir::tile::gpu_lowering::isTmaStore(const KernelPlan &plan, CopyOp copy) {
  if (!plan.persistent || plan.threadRanges || !plan.options.tmaStore ||
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

nvgpu::TensorMapDescriptorType
mlir::tile::gpu_lowering::getTmaStoreMapType(CopyOp copy) {
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

/// The tensor map type of TMA producer `copy`, reading `global`: a box per
/// swizzle panel of its tile (of one along a slice's dropped dims).
static nvgpu::TensorMapDescriptorType
getTmaLoadMapType(const KernelPlan &plan, CopyOp copy, Value global,
                  memref::SubViewOp slice) {
  MLIRContext *context = copy.getContext();
  auto type = cast<MemRefType>(global.getType());
  TmaBox box = *getTmaBox(plan.shared.find(copy.getDest())->second);
  int64_t rank = type.getRank();
  SmallVector<int64_t> boxShape(rank, 1);
  boxShape[rank - 1] = box.columns;
  boxShape[getTmaRowDim(slice)] = box.rows;
  auto swizzle =
      box.swizzleBytes == 128  ? nvgpu::TensorMapSwizzleKind::SWIZZLE_128B
      : box.swizzleBytes == 64 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_64B
      : box.swizzleBytes == 32 ? nvgpu::TensorMapSwizzleKind::SWIZZLE_32B
                               : nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE;
  return nvgpu::TensorMapDescriptorType::get(
      context,
      MemRefType::get(
          boxShape, getTmaElementType(type.getElementType()),
          MemRefLayoutAttrInterface(),
          gpu::AddressSpaceAttr::get(context, gpu::AddressSpace::Workgroup)),
      swizzle, nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
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

/// i1: every row of every tensor in `tensors` starts 16-byte aligned.
static Value areAllRowsAligned(OpBuilder &b, Location loc,
                               ArrayRef<Value> tensors) {
  Value ready;
  for (Value global : tensors) {
    int64_t bytes =
        cast<MemRefType>(global.getType()).getElementTypeBitWidth() / 8;
    Value aligned = areRowsAligned(b, loc, global, 16 / bytes);
    ready = ready ? arith::AndIOp::create(b, loc, ready, aligned).getResult()
                  : aligned;
  }
  return ready;
}

/// Builds `scf.if ready` yielding the pointers `encode` builds, or nulls
/// where the tensors do not qualify.
static ValueRange
buildEncodedIfReady(OpBuilder &b, Location loc, Value ready, int64_t count,
                    function_ref<SmallVector<Value>(OpBuilder &)> encode) {
  auto pointerType = LLVM::LLVMPointerType::get(b.getContext());
  SmallVector<Type> pointerTypes(count, pointerType);
  auto encoded = scf::IfOp::create(b, loc, pointerTypes, ready,
                                   /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(encoded.elseBlock());
  Value null = LLVM::ZeroOp::create(b, loc, pointerType);
  scf::YieldOp::create(b, loc, SmallVector<Value>(count, null));
  b.setInsertionPointToStart(encoded.thenBlock());
  scf::YieldOp::create(b, loc, encode(b));
  return encoded.getResults();
}

void mlir::tile::gpu_lowering::createTensorMaps(KernelContext &k, OpBuilder &b,
                                                Location loc, KernelOp kernel) {
  for (auto &entry : k.plan.pipelines) {
    const PipelinePlan &plan = entry.second;
    if (!plan.tma)
      continue;
    // TMA reads rows from 16-byte aligned addresses, and the driver refuses
    // to encode a map of other tensors: the maps are encoded only when all
    // of the loop's tensors qualify (else the cp.async version runs).
    SmallVector<Value> tensors;
    SmallVector<memref::SubViewOp> slices;
    for (CopyOp copy : plan.producers) {
      slices.push_back(*getTmaSlice(copy, kernel));
      tensors.push_back(getHostTensor(b, loc, copy, slices.back()));
    }
    Value ready = areAllRowsAligned(b, loc, tensors);
    k.hopper.tmaReady[entry.first] = ready;
    ValueRange maps = buildEncodedIfReady(
        b, loc, ready, plan.producers.size(), [&](OpBuilder &then) {
          SmallVector<Value> encoded;
          for (auto [copy, global, slice] :
               llvm::zip(plan.producers, tensors, slices)) {
            auto mapType = getTmaLoadMapType(k.plan, copy, global, slice);
            encoded.push_back(encodeTensorMap(k, then, loc, global, mapType));
            k.hopper.tensorMaps[copy] = {Value(), mapType};
          }
          return encoded;
        });
    for (auto [copy, map] : llvm::zip(plan.producers, maps))
      k.hopper.tensorMaps[copy].first = map;
  }
  // Copies that signal a barrier: a map each where its tensor's rows are
  // aligned, else the range's threads copy.
  for (CopyOp copy : k.plan.tmaBarrierLoads) {
    memref::SubViewOp slice = *getTmaSlice(copy, kernel);
    Value global = getHostTensor(b, loc, copy, slice);
    Value ready = areAllRowsAligned(b, loc, global);
    k.hopper.tmaReady[copy] = ready;
    auto mapType = getTmaLoadMapType(k.plan, copy, global, slice);
    ValueRange map =
        buildEncodedIfReady(b, loc, ready, 1, [&](OpBuilder &then) {
          return SmallVector<Value>{
              encodeTensorMap(k, then, loc, global, mapType)};
        });
    k.hopper.tensorMaps[copy] = {map.front(), mapType};
  }
  // TMA stores (in program order): a map each where the destination's rows
  // are 16-byte aligned, else the staged store's vectorized version runs.
  kernel.walk([&](CopyOp copy) {
    if (!k.plan.scratch.count(copy) || !isTmaStore(k.plan, copy))
      return;
    Value global = copy.getDest();
    Value ready = areAllRowsAligned(b, loc, global);
    k.hopper.tmaReady[copy] = ready;
    auto mapType = getTmaStoreMapType(copy);
    ValueRange map = buildEncodedIfReady(b, loc, ready, 1, [&](OpBuilder &then) {
      return SmallVector<Value>{encodeTensorMap(k, then, loc, global, mapType)};
    });
    k.hopper.tensorMaps[copy] = {map.front(), mapType};
  });
}
