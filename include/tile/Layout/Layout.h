//===- Layout.h - Mixed-radix strided layouts with XOR swizzles -*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A Layout maps an index in an input space (a logical tile index) to an index
// in an output space: a physical offset for a shared-memory buffer, or an
// owning (thread, slot) pair for a register fragment.
//
// Each input dimension is split into factors, outermost first, like the digits
// of a mixed-radix number. A factor of size n contributes `digit * stride` to
// one output dimension. For the f32 accumulator of one mma.sync m16n8k16:
//
//   row = r1 * 8 + r0   (r1 < 2, r0 < 8)    thread = r0 * 4 + c1
//   col = c1 * 2 + c0   (c1 < 4, c0 < 2)    slot   = r1 * 2 + c0
//
// which is the layout [[2:s2, 8:t4], [4:t1, 2:s1]] in the dialect's syntax.
//
// Shared layouts may also carry an XOR swizzle on their single output (the
// 32/64/128-byte modes of TMA and wgmma). Every layout is checkable: its
// extents, injectivity, and (for swizzle-free layouts) inverse are computed.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_LAYOUT_H
#define TILE_LAYOUT_LAYOUT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::tile {

/// One digit of an input dimension: `size` consecutive index values that add
/// `digit * stride` to output dimension `outDim`. A stride of 0 broadcasts.
struct LayoutFactor {
  int64_t size = 1;
  unsigned outDim = 0;
  int64_t stride = 0;

  bool operator==(const LayoutFactor &o) const {
    return size == o.size && outDim == o.outDim && stride == o.stride;
  }
  bool operator!=(const LayoutFactor &o) const { return !(*this == o); }
};

/// An XOR swizzle on an offset, as CuTe's Swizzle<B, M, S>: the `bits` bits
/// starting at bit `base + shift` are XOR-ed into the `bits` bits starting at
/// bit `base`. It is an involution, hence a bijection on offsets.
struct Swizzle {
  unsigned bits = 0;
  unsigned base = 0;
  unsigned shift = 0;

  int64_t apply(int64_t offset) const {
    int64_t mask = ((int64_t(1) << bits) - 1) << (base + shift);
    return offset ^ ((offset & mask) >> shift);
  }
  bool operator==(const Swizzle &o) const {
    return bits == o.bits && base == o.base && shift == o.shift;
  }

  /// The swizzle of a TMA/wgmma mode (32, 64 or 128 bytes) on elements of
  /// `elementBytes` bytes; std::nullopt if the combination does not exist.
  static std::optional<Swizzle> forMode(int64_t modeBytes,
                                        int64_t elementBytes);
  /// The mode (32, 64 or 128 bytes) this swizzle is on elements of
  /// `elementBytes` bytes; std::nullopt if it is none of them.
  std::optional<int64_t> getModeBytes(int64_t elementBytes) const;
  /// How descriptors encode the mode: CUtensorMapSwizzle for TMA
  /// (32B = 1, 64B = 2, 128B = 3) and the wgmma shared-memory descriptor's
  /// layout type (128B = 1, 64B = 2, 32B = 3).
  static int64_t getTmaSwizzleEnum(int64_t modeBytes);
  static int64_t getWgmmaLayoutType(int64_t modeBytes);
};

/// A mixed-radix strided map from an input index space to an output space.
class Layout {
public:
  using DimFactors = SmallVector<LayoutFactor, 4>;

  Layout() = default;
  /// `dims[d]` lists the factors of input dim `d`, outermost first.
  Layout(ArrayRef<DimFactors> dims, unsigned outRank,
         std::optional<Swizzle> swizzle = std::nullopt);

  /// Row-major (C order) layout of `shape` into one offset.
  static Layout rowMajor(ArrayRef<int64_t> shape);
  /// Each input dim maps to the output dim of the same position.
  static Layout identity(ArrayRef<int64_t> shape);

  unsigned getInRank() const { return dims.size(); }
  unsigned getOutRank() const { return outRank; }
  ArrayRef<LayoutFactor> getFactors(unsigned dim) const { return dims[dim]; }
  ArrayRef<DimFactors> getDims() const { return dims; }
  std::optional<Swizzle> getSwizzle() const { return swizzle; }

  /// Extent of each input dim (the product of its factor sizes).
  SmallVector<int64_t> getInShape() const;
  /// Number of points in the input space.
  int64_t getInSize() const;
  /// One past the largest value of each output dim over the input space.
  SmallVector<int64_t> getOutExtents() const;

  /// Maps an input index to its output index.
  SmallVector<int64_t> apply(ArrayRef<int64_t> index) const;
  /// Maps the position of an input index in row-major order.
  SmallVector<int64_t> applyLinear(int64_t linearIndex) const;

  /// Distinct inputs map to distinct outputs.
  bool isInjective() const;
  /// Two inputs (as row-major linear positions) with the same output, found
  /// by enumeration; std::nullopt when there are none or too many points to
  /// look at (see isInjective for a definite answer).
  std::optional<std::pair<int64_t, int64_t>> findCollision() const;
  /// The input index at a row-major linear position.
  SmallVector<int64_t> delinearize(int64_t linearIndex) const;

  /// Injective and onto [0, extent) in every output dim.
  bool isBijective() const;

  /// Drops size-1 factors and merges neighbours that continue each other.
  Layout simplify() const;

  /// The inverse map, from output space to input space. Requires an injective,
  /// swizzle-free layout whose image is a compact box [0, extents).
  FailureOr<Layout> inverse() const;

  /// This layout after `inner` (`inner`'s outputs are this layout's inputs).
  /// Fails unless every factor of `inner` lands on whole digits of this
  /// layout's input dims (no carries between digits).
  FailureOr<Layout> compose(const Layout &inner) const;

  /// The same map over a row-major reshaping of the input space.
  FailureOr<Layout> reshapeInput(ArrayRef<int64_t> newShape) const;

  /// Repeats the layout along input dim `dim`: `factor` becomes its new
  /// outermost digit.
  Layout repeat(unsigned dim, LayoutFactor factor) const;
  /// Inserts a new input dim at position `pos` made of `factors`.
  Layout insertDim(unsigned pos, ArrayRef<LayoutFactor> factors) const;
  /// Removes input dim `dim`; its factors are appended to `removed`.
  Layout dropDim(unsigned dim,
                 SmallVectorImpl<LayoutFactor> *removed = nullptr) const;
  /// Reorders input dims: new dim `i` is old dim `perm[i]`.
  Layout permuteInput(ArrayRef<unsigned> perm) const;
  /// Views each `k` consecutive elements of input dim `dim` as one element
  /// (e.g. f16 pairs as 32-bit words, or 8 f16 as one 128-bit vector). The
  /// innermost digit of `dim` must step by 1 along its output dim, and every
  /// other stride on that output must be a multiple of `k`.
  FailureOr<Layout> rescale(unsigned dim, int64_t k) const;
  /// Renumbers output dim `outDim` without gaps: its factors, in stride
  /// order, get the dense strides 1, s0, s0*s1, ...
  Layout compactOutput(unsigned outDim) const;

  bool operator==(const Layout &o) const;
  bool operator!=(const Layout &o) const { return !(*this == o); }

  /// Prints factors as `[[2:o8, 8:o1]]` (o = output dim index).
  void print(raw_ostream &os) const;
  std::string str() const;

private:
  SmallVector<DimFactors, 4> dims;
  unsigned outRank = 0;
  std::optional<Swizzle> swizzle;
};

/// Writes a 2-d single-output layout (a shared-memory layout) as a table of
/// offsets, one row per index of the first dim.
void printOffsetTable(const Layout &layout, raw_ostream &os);

inline raw_ostream &operator<<(raw_ostream &os, const Layout &layout) {
  layout.print(os);
  return os;
}

} // namespace mlir::tile

#endif // TILE_LAYOUT_LAYOUT_H
