//===- LayoutInference.h - What layout inference offers ops ----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-infer-layouts asks every op of a kernel that implements
// LayoutInferenceOpInterface what it needs of the layouts of the buffers it
// touches. The ops answer through a LayoutInferenceState: they read the
// layouts decided so far and record new decisions (with the reason, for
// conflict diagnostics and `explain`), and the state reports conflicts.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_LAYOUTINFERENCE_H
#define TILE_DIALECT_TILE_IR_LAYOUTINFERENCE_H

#include "tile/Layout/Layout.h"
#include "tile/Target/Target.h"

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::tile {

class LayoutAttrInterface;

/// A layout and why it was chosen: by `op`, for `reason`.
struct LayoutDecision {
  Layout layout;
  Operation *op = nullptr;
  std::string reason;
};

class LayoutInferenceState {
public:
  virtual ~LayoutInferenceState();

  /// The chip and the kernel's thread count.
  virtual const TargetInfo &getTarget() const = 0;
  virtual int64_t getThreads() const = 0;

  /// The layout decided for a fragment value, or for a tile.parallel's
  /// iteration space; null while undecided.
  virtual const LayoutDecision *getFragment(Value fragment) const = 0;
  virtual const LayoutDecision *getLoop(Operation *loop) const = 0;

  /// Decides `layout` for `fragment`, made by `op` for `reason`. If the
  /// fragment has a layout already, the two must agree (`exact`: slot for
  /// slot, else the same owning threads), or a conflict is reported.
  virtual LogicalResult setFragment(Value fragment, const Layout &layout,
                                    Operation *op, StringRef reason,
                                    bool exact) = 0;
  /// Decides the iteration-space layout of an undecided tile.parallel.
  virtual void setLoop(Operation *loop, const Layout &layout,
                       StringRef reason) = 0;
  /// Proposes `layout` for a shared buffer that has none yet.
  virtual void proposeShared(Value buffer, LayoutAttrInterface layout,
                             Operation *op, StringRef reason) = 0;

  /// Reports at `op` that `what` needs `wanted` where `fragment` already
  /// has another layout (with a note at the op that chose it); fails.
  virtual LogicalResult conflict(Operation *op, StringRef what,
                                 const Layout &wanted, Value fragment) = 0;
};

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_IR_LAYOUTINFERENCE_H
