//===- FragmentLayouts.cpp - Built-in fragment layouts --------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/FragmentLayouts.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {
LayoutFactor t(int64_t size, int64_t stride) {
  return {size, kThreadAxis, stride};
}
LayoutFactor s(int64_t size, int64_t stride) {
  return {size, kSlotAxis, stride};
}
using Dims = SmallVector<Layout::DimFactors>;
} // namespace

Layout mlir::tile::makeFragment(ArrayRef<Layout::DimFactors> dims,
                                ArrayRef<LayoutFactor> replicas) {
  SmallVector<Layout::DimFactors> all(dims.begin(), dims.end());
  all.emplace_back(replicas);
  return Layout(all, 2);
}

unsigned mlir::tile::getFragmentRank(const Layout &fragment) {
  return fragment.getInRank() - 1;
}

int64_t mlir::tile::getThreadExtent(const Layout &fragment) {
  return fragment.getOutExtents()[kThreadAxis];
}

int64_t mlir::tile::getSlotExtent(const Layout &fragment) {
  return fragment.getOutExtents()[kSlotAxis];
}

//===----------------------------------------------------------------------===//
// Instruction atoms (PTX ISA "Matrix Fragments for mma.m16n8k*"; AMD matrix
// instruction calculator for MFMA; PTX "wgmma Register Fragments")
//===----------------------------------------------------------------------===//

std::optional<MmaAtom> mlir::tile::getMmaSyncAtom(unsigned elementBits) {
  // Lane = 4 * groupID + threadID_in_group in every table below.
  Layout c = makeFragment(Dims{{s(2, 2), t(8, 4)}, {t(4, 1), s(2, 1)}});
  switch (elementBits) {
  case 16: // m16n8k16: a0..a7, b0..b3.
    return MmaAtom{16, 8, 16, 32,
                   makeFragment(Dims{{s(2, 2), t(8, 4)},
                                     {s(2, 4), t(4, 1), s(2, 1)}}),
                   makeFragment(Dims{{s(2, 2), t(4, 1), s(2, 1)}, {t(8, 4)}}),
                   c};
  case 32: // m16n8k8 tf32: a0..a3, b0..b1.
    return MmaAtom{16, 8, 8, 32,
                   makeFragment(Dims{{s(2, 1), t(8, 4)}, {s(2, 2), t(4, 1)}}),
                   makeFragment(Dims{{s(2, 1), t(4, 1)}, {t(8, 4)}}), c};
  case 8: // m16n8k32 s8/u8: a0..a15, b0..b7.
    return MmaAtom{16, 8, 32, 32,
                   makeFragment(Dims{{s(2, 4), t(8, 4)},
                                     {s(2, 8), t(4, 1), s(4, 1)}}),
                   makeFragment(Dims{{s(2, 4), t(4, 1), s(4, 1)}, {t(8, 4)}}),
                   c};
  default:
    return std::nullopt;
  }
}

MmaAtom mlir::tile::getMfma16x16x16Atom() {
  // Lane l: A[l % 16][4 * (l / 16) + v], B[4 * (l / 16) + v][l % 16],
  // C[4 * (l / 16) + v][l % 16] for register v < 4.
  return MmaAtom{16, 16, 16, 64,
                 makeFragment(Dims{{t(16, 1)}, {t(4, 16), s(4, 1)}}),
                 makeFragment(Dims{{t(4, 16), s(4, 1)}, {t(16, 1)}}),
                 makeFragment(Dims{{t(4, 16), s(4, 1)}, {t(16, 1)}})};
}

MmaAtom mlir::tile::getMfma16x16x32Atom() {
  return MmaAtom{16, 16, 32, 64,
                 makeFragment(Dims{{t(16, 1)}, {t(4, 16), s(8, 1)}}),
                 makeFragment(Dims{{t(4, 16), s(8, 1)}, {t(16, 1)}}),
                 makeFragment(Dims{{t(4, 16), s(4, 1)}, {t(16, 1)}})};
}

Layout mlir::tile::getWgmmaAccumulator(int64_t n) {
  // Warp w of the warpgroup owns rows 16w..16w+15, each warp as mma.sync's
  // accumulator, repeated every 8 columns.
  return makeFragment(
      Dims{{t(4, 32), s(2, 2), t(8, 4)}, {s(n / 8, 4), t(4, 1), s(2, 1)}});
}

Layout mlir::tile::getWgmmaOperandA() {
  return makeFragment(
      Dims{{t(4, 32), s(2, 2), t(8, 4)}, {s(2, 4), t(4, 1), s(2, 1)}});
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

Layout mlir::tile::tileAtom(const Layout &atom, const AtomTiling &tiling) {
  unsigned rank = getFragmentRank(atom);
  assert(tiling.warps.size() == rank && tiling.repeats.size() == rank &&
         tiling.warpStrides.size() == rank && "tiling rank mismatch");
  int64_t atomSlots = getSlotExtent(atom);
  SmallVector<Layout::DimFactors> dims;
  for (unsigned d = 0; d < rank; ++d) {
    Layout::DimFactors factors;
    if (tiling.warps[d] > 1)
      factors.push_back(t(tiling.warps[d], tiling.warpStrides[d]));
    if (tiling.repeats[d] > 1) {
      int64_t stride = atomSlots;
      for (unsigned e = d + 1; e < rank; ++e)
        stride *= tiling.repeats[e];
      factors.push_back(s(tiling.repeats[d], stride));
    }
    ArrayRef<LayoutFactor> inner = atom.getFactors(d);
    factors.append(inner.begin(), inner.end());
    dims.push_back(std::move(factors));
  }
  SmallVector<LayoutFactor> replicas(atom.getFactors(rank));
  replicas.append(tiling.replicas.begin(), tiling.replicas.end());
  return makeFragment(dims, replicas);
}

namespace {
/// The innermost-first thread distribution of getVectorizedFragment: how
/// many of `threads` each dim of `shape` (the innermost counted in runs of
/// `vector`) takes.
SmallVector<int64_t> distributeThreads(ArrayRef<int64_t> shape, int64_t vector,
                                       int64_t threads) {
  SmallVector<int64_t> onThreads(shape.size(), 1);
  for (int64_t d = shape.size() - 1; d >= 0 && threads > 1; --d) {
    int64_t extent = shape[d];
    if (d == static_cast<int64_t>(shape.size()) - 1)
      extent /= vector;
    onThreads[d] = std::gcd(extent, threads);
    threads /= onThreads[d];
  }
  return onThreads;
}
} // namespace

Layout mlir::tile::getVectorizedFragment(ArrayRef<int64_t> shape,
                                         unsigned elementBits,
                                         int64_t threads,
                                         unsigned vectorBits) {
  unsigned rank = shape.size();
  int64_t vector = std::max<int64_t>(1, vectorBits / std::max(1u, elementBits));
  while (vector > 1 && shape.back() % vector != 0)
    vector /= 2;

  // Whole dims go to threads by gcd, so a thread count with few factors in
  // common with the shape (33 threads for a 32 x 128 tile) would leave most
  // elements on one thread: use the count up to `threads` that spreads the
  // tile over the most threads (32 of the 33), the largest among equals.
  SmallVector<int64_t> onThreads;
  int64_t used = 0;
  for (int64_t count = threads; count > used; --count) {
    SmallVector<int64_t> candidate = distributeThreads(shape, vector, count);
    int64_t product = 1;
    for (int64_t n : candidate)
      product *= n;
    if (product > used) {
      used = product;
      onThreads = std::move(candidate);
    }
  }
  if (onThreads.empty()) // `threads` < 1: everything on thread 0.
    onThreads.assign(rank, 1);

  // Slot digits get provisional strides in the order slots should be
  // numbered (the vector innermost, then outward); compactOutput makes them
  // dense afterwards. Threads go to the innermost dims first.
  SmallVector<Layout::DimFactors> dims(rank);
  int64_t threadStride = 1;
  int64_t slotOrder = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    int64_t extent = shape[d];
    Layout::DimFactors inner;
    if (d == static_cast<int64_t>(rank) - 1 && vector > 1) {
      inner.push_back(s(vector, slotOrder++));
      extent /= vector;
    }
    if (onThreads[d] > 1) {
      inner.insert(inner.begin(), t(onThreads[d], threadStride));
      threadStride *= onThreads[d];
    }
    if (extent / onThreads[d] > 1)
      inner.insert(inner.begin(), s(extent / onThreads[d], slotOrder++));
    dims[d] = std::move(inner);
  }
  // The provisional slot strides rank the digits; make them dense.
  return makeFragment(dims).compactOutput(kSlotAxis);
}

int64_t mlir::tile::getRegistersPerThread(const Layout &fragment,
                                          unsigned elementBits) {
  // Sub-16-bit elements still take (at least) half a register each.
  int64_t bits = std::max(elementBits, 16u);
  return llvm::divideCeil(getSlotExtent(fragment) * bits, 32);
}

Layout mlir::tile::projectFragment(const Layout &fragment, unsigned dim) {
  SmallVector<LayoutFactor> removed;
  Layout dropped = fragment.dropDim(dim, &removed);
  unsigned replicaDim = dropped.getInRank() - 1;
  SmallVector<LayoutFactor> replicas(dropped.getFactors(replicaDim));
  for (const LayoutFactor &f : removed)
    if (f.outDim == kThreadAxis && f.size > 1)
      replicas.push_back(f);
  Layout projected = dropped.dropDim(replicaDim).insertDim(replicaDim,
                                                           replicas);
  return projected.compactOutput(kSlotAxis);
}

Layout mlir::tile::insertSlotDims(Layout fragment, ArrayRef<unsigned> dims,
                                  ArrayRef<int64_t> shape) {
  for (unsigned d : dims)
    fragment = fragment.insertDim(
        d, {LayoutFactor{shape[d], kSlotAxis, getSlotExtent(fragment)}});
  return fragment;
}

std::set<int64_t> mlir::tile::getOwners(const Layout &fragment,
                                        ArrayRef<int64_t> index) {
  SmallVector<int64_t> point(index);
  point.push_back(0);
  std::set<int64_t> threads;
  int64_t copies = fragment.getInShape().back();
  for (int64_t c = 0; c < copies; ++c) {
    point.back() = c;
    threads.insert(fragment.apply(point)[kThreadAxis]);
  }
  return threads;
}

void mlir::tile::forEachFragmentIndex(
    const Layout &fragment, function_ref<void(ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> shape = fragment.getInShape();
  shape.pop_back();
  int64_t points = 1;
  for (int64_t s : shape)
    points *= s;
  SmallVector<int64_t> index(shape.size());
  for (int64_t i = 0; i < points; ++i) {
    int64_t rest = i;
    for (int64_t d = shape.size() - 1; d >= 0; --d) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    fn(index);
  }
}

bool mlir::tile::haveSameOwners(const Layout &a, const Layout &b,
                                bool compareSlots) {
  SmallVector<int64_t> shapeA = a.getInShape(), shapeB = b.getInShape();
  if (ArrayRef<int64_t>(shapeA).drop_back() !=
      ArrayRef<int64_t>(shapeB).drop_back())
    return false;
  bool same = true;
  forEachFragmentIndex(a, [&](ArrayRef<int64_t> index) {
    if (!same)
      return;
    if (getOwners(a, index) != getOwners(b, index)) {
      same = false;
      return;
    }
    if (compareSlots) {
      SmallVector<int64_t> point(index);
      point.push_back(0);
      same = a.apply(point)[kSlotAxis] == b.apply(point)[kSlotAxis];
    }
  });
  return same;
}

void mlir::tile::printFragmentTable(const Layout &fragment, raw_ostream &os) {
  unsigned rank = getFragmentRank(fragment);
  SmallVector<int64_t> shape = fragment.getInShape();
  int64_t rows = rank == 2 ? shape[0] : 1;
  int64_t cols = rank == 2 ? shape[1] : shape[0];
  if (rank > 2) {
    os << "(no table for rank-" << rank << " fragments)\n";
    return;
  }
  auto cell = [&](int64_t r, int64_t c) {
    SmallVector<int64_t> index =
        rank == 2 ? SmallVector<int64_t>{r, c, 0} : SmallVector<int64_t>{c, 0};
    SmallVector<int64_t> out = fragment.apply(index);
    return ("T" + Twine(out[kThreadAxis]) + ":" + Twine(out[kSlotAxis])).str();
  };
  size_t width = 0;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      width = std::max(width, cell(r, c).size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c + 1 < cols; ++c)
      os << llvm::left_justify(cell(r, c), width + 1);
    os << cell(r, cols - 1) << "\n";
  }
}
