//===- FragmentTransfer.cpp - Moving a fragment into another layout -------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/FragmentTransfer.h"

#include "tile/Layout/FragmentLayouts.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::tile;

std::string FragmentTransfer::describe() const {
  switch (kind) {
  case TransferKind::InThread:
    return "registers of each thread";
  case TransferKind::WarpShuffle:
    return "warp shuffles";
  case TransferKind::SharedMemory:
    return "shared memory";
  }
  return "";
}

namespace {
/// Where the copies of every element of a fragment live: for each logical
/// element (row-major position), the (thread, slot) of each replica.
struct Placement {
  SmallVector<SmallVector<std::pair<int64_t, int64_t>, 1>> copies;
};

Placement place(const Layout &fragment) {
  Placement placement;
  SmallVector<int64_t> shape = fragment.getInShape();
  int64_t replicas = shape.pop_back_val();
  forEachFragmentIndex(fragment, [&](ArrayRef<int64_t> index) {
    SmallVector<int64_t> point(index);
    point.push_back(0);
    auto &copies = placement.copies.emplace_back();
    for (int64_t r = 0; r < replicas; ++r) {
      point.back() = r;
      SmallVector<int64_t> out = fragment.apply(point);
      copies.push_back({out[kThreadAxis], out[kSlotAxis]});
    }
  });
  return placement;
}
} // namespace

FragmentTransfer mlir::tile::planFragmentTransfer(const Layout &from,
                                                  const Layout &to,
                                                  unsigned elementBits,
                                                  int64_t threads,
                                                  int64_t warpSize) {
  FragmentTransfer transfer;
  Placement source = place(from), target = place(to);
  if (source.copies.size() != target.copies.size())
    return transfer;

  // Each destination (thread, slot) and the element it holds.
  int64_t slots = getSlotExtent(to);
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> holders(slots);
  for (auto [element, copies] : llvm::enumerate(target.copies))
    for (auto [thread, slot] : copies)
      if (thread < threads)
        holders[slot].push_back({thread, int64_t(element)});

  bool shuffles =
      warpSize > 1 && threads % warpSize == 0 && elementBits <= 32;
  transfer.sourceSlot.assign(slots, -1);
  transfer.sourceReplica.assign(slots, -1);
  bool allInThread = true;
  for (int64_t slot = 0; slot < slots; ++slot) {
    if (holders[slot].empty())
      continue;
    // In-thread: the thread holds a copy, in the same slot everywhere.
    std::optional<int64_t> common;
    bool inThread = true;
    for (auto [thread, element] : holders[slot]) {
      std::optional<int64_t> here;
      for (auto [t, s] : source.copies[element])
        if (t == thread)
          here = s;
      if (!here || (common && *common != *here)) {
        inThread = false;
        break;
      }
      common = here;
    }
    if (inThread) {
      transfer.sourceSlot[slot] = *common;
      continue;
    }
    allInThread = false;
    // Warp shuffle: one replica whose owner is in the reader's warp, in
    // the same slot everywhere.
    bool found = false;
    int64_t replicas = source.copies.front().size();
    for (int64_t r = 0; shuffles && r < replicas && !found; ++r) {
      std::optional<int64_t> slotOfR;
      bool ok = true;
      for (auto [thread, element] : holders[slot]) {
        auto [t, s] = source.copies[element][r];
        if (t / warpSize != thread / warpSize || (slotOfR && *slotOfR != s)) {
          ok = false;
          break;
        }
        slotOfR = s;
      }
      if (ok) {
        found = true;
        transfer.sourceSlot[slot] = *slotOfR;
        transfer.sourceReplica[slot] = r;
      }
    }
    if (!found) {
      transfer.kind = TransferKind::SharedMemory;
      transfer.sourceSlot.clear();
      transfer.sourceReplica.clear();
      return transfer;
    }
  }
  transfer.kind =
      allInThread ? TransferKind::InThread : TransferKind::WarpShuffle;
  return transfer;
}
