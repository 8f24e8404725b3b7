//===- TileDebugOps.cpp - Debugging ops -----------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.print: what it prints (a message, a scalar, or a buffer of one of
// four kinds) and its verifier; tile.fence's, which like a print may be
// anywhere in a kernel.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// PrintOp
//===----------------------------------------------------------------------===//

/// Whether `type` is in #gpu.address_space<private>.
static bool isPrivateMemRef(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Private;
}

/// Whether `memref` lives in one thread: a memref in
/// #gpu.address_space<private>, or an alloca of the kernel without a memory
/// space (TileLang's T.alloc_local).
static bool isThreadLocal(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getMemorySpace())
    return isPrivateMemRef(type);
  return static_cast<bool>(memref.getDefiningOp<memref::AllocaOp>());
}

PrintOp::Printed PrintOp::getPrinted() {
  Value value = getValue();
  if (!value)
    return Printed::Message;
  Type type = value.getType();
  if (isa<FragmentType>(type))
    return Printed::Fragment;
  if (!isa<MemRefType>(type))
    return Printed::Scalar;
  if (isSharedMemRef(type))
    return Printed::Shared;
  if (isThreadLocal(value))
    return Printed::Local;
  return Printed::Global;
}

bool PrintOp::isPrintedByOneThread() {
  Printed printed = getPrinted();
  return printed == Printed::Global || printed == Printed::Shared ||
         printed == Printed::Fragment;
}

int64_t PrintOp::getPrintingThread() {
  IntegerAttr thread = getThreadAttr();
  return thread ? thread.getInt() : 0;
}

StringRef PrintOp::getBufferName() {
  if (StringAttr name = getNameAttr())
    return name.getValue();
  switch (getPrinted()) {
  case Printed::Global:
    return "global";
  case Printed::Shared:
    return "shared";
  case Printed::Fragment:
    return "fragment";
  case Printed::Local:
    return "local";
  case Printed::Message:
  case Printed::Scalar:
    break;
  }
  return "";
}

Type PrintOp::getPrintedType() {
  Value value = getValue();
  if (!value)
    return Type();
  if (auto shaped = dyn_cast<ShapedType>(value.getType()))
    return shaped.getElementType();
  return value.getType();
}

ParallelOp PrintOp::getParallel() {
  return (*this)->getParentOfType<ParallelOp>();
}

LogicalResult PrintOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("must be nested in a 'tile.kernel'");
  Printed printed = getPrinted();
  if (getParallel() && printed != Printed::Message &&
      printed != Printed::Scalar)
    return emitOpError("prints a buffer, which a 'tile.parallel' body "
                       "cannot: print a scalar there (an element read), or "
                       "the buffer after the loop");
  if (printed == Printed::Message) {
    if (getMessage().empty())
      return emitOpError("expects a value to print or a non-empty message");
    if (getNameAttr() || getThreadAttr() || getIsUnsigned())
      return emitOpError("prints only its message: 'name', 'thread' and "
                         "'unsigned' need a printed value");
    return success();
  }
  Type element = getPrintedType();
  if (!element.isIntOrIndexOrFloat())
    return emitOpError("prints integer, index or float elements, got ")
           << element;
  if (element.isSignlessInteger() && element.getIntOrFloatBitWidth() > 64)
    return emitOpError("prints integers of at most 64 bits, got ") << element;
  if (getIsUnsigned() && !element.isSignlessInteger())
    return emitOpError("'unsigned' needs integer values, got ") << element;
  if (auto memref = dyn_cast<MemRefType>(getValue().getType()))
    if (!isGlobalMemRef(memref) && !isSharedMemRef(memref) &&
        !isPrivateMemRef(memref))
      return emitOpError("cannot print a memref in memory space ")
             << memref.getMemorySpace();
  if (printed == Printed::Scalar && getNameAttr())
    return emitOpError("'name' names a printed buffer, but the value is a "
                       "scalar of type ")
           << element;
  if (!getThreadAttr())
    return success();
  if (!isPrintedByOneThread())
    return emitOpError("'thread' selects the thread that prints a buffer, "
                       "but every thread prints ")
           << (printed == Printed::Scalar ? "a scalar"
                                          : "a thread-local buffer");
  int64_t thread = getThreadAttr().getInt();
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (thread < 0)
    return emitOpError("expects a non-negative thread, got ") << thread;
  if (kernel && thread >= static_cast<int64_t>(kernel.getThreads()))
    return emitOpError("prints from thread ")
           << thread << ", but the kernel has " << kernel.getThreads()
           << " threads";
  return success();
}

//===----------------------------------------------------------------------===//
// FenceOp
//===----------------------------------------------------------------------===//

LogicalResult FenceOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("must be nested in a 'tile.kernel'");
  return success();
}
