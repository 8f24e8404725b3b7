//===- FragmentTransfer.h - Moving a fragment into another layout -*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A copy between two fragments of the same shape must deliver every copy of
// every element of the destination to the thread and slot its layout names.
// planFragmentTransfer decides how, cheapest first:
//
//   in-thread     every destination slot reads one source slot of its own
//                 thread (the same slot on every thread): register moves;
//   warp shuffle  every destination slot reads one source slot (the same on
//                 every thread) of a thread in its own warp: one shuffle per
//                 destination slot;
//   shared memory anything else: the block writes the tile to shared scratch
//                 and reads it back in the destination layout.
//
// Layout inference reports the choice (`explain`), the shared-memory planner
// reserves the scratch, and the GPU lowering emits the code.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_FRAGMENTTRANSFER_H
#define TILE_LAYOUT_FRAGMENTTRANSFER_H

#include "tile/Layout/Layout.h"

#include <string>

namespace mlir::tile {

enum class TransferKind { InThread, WarpShuffle, SharedMemory };

struct FragmentTransfer {
  TransferKind kind = TransferKind::SharedMemory;
  /// Per destination slot: the source slot it reads (InThread and
  /// WarpShuffle), or -1 for a slot no thread uses.
  SmallVector<int64_t> sourceSlot;
  /// Per destination slot: -1 when the source slot is on the reading thread,
  /// else the replica of the source element whose owner (a lane of the
  /// reader's warp) is read by a shuffle.
  SmallVector<int64_t> sourceReplica;

  /// "registers of each thread", "warp shuffles" or "shared memory".
  std::string describe() const;
};

/// Plans a copy from fragment layout `from` to fragment layout `to` (equal
/// logical shapes) of `elementBits`-bit source elements in a block of
/// `threads` threads with warps of `warpSize` (shuffles move 32 bits).
FragmentTransfer planFragmentTransfer(const Layout &from, const Layout &to,
                                      unsigned elementBits, int64_t threads,
                                      int64_t warpSize);

} // namespace mlir::tile

#endif // TILE_LAYOUT_FRAGMENTTRANSFER_H
