//===- Layout.cpp - Mixed-radix strided layouts with XOR swizzles ---------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/Layout.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <string>

using namespace mlir;
using namespace mlir::tile;

/// Beyond this many points, injectivity is not checked by enumeration.
static constexpr int64_t kMaxEnumeratedPoints = int64_t(1) << 24;

std::optional<Swizzle> Swizzle::forMode(int64_t modeBytes,
                                        int64_t elementBytes) {
  unsigned bits;
  switch (modeBytes) {
  case 32:
    bits = 1;
    break;
  case 64:
    bits = 2;
    break;
  case 128:
    bits = 3;
    break;
  default:
    return std::nullopt;
  }
  // The swizzled unit is a 16-byte chunk; rows of the swizzle atom are 128
  // bytes apart, so the XOR source sits 3 bits above the chunk index.
  if (elementBytes <= 0 || elementBytes > 16 ||
      !llvm::isPowerOf2_64(elementBytes))
    return std::nullopt;
  return Swizzle{bits, llvm::Log2_64(16 / elementBytes), 3};
}

std::optional<int64_t> Swizzle::getModeBytes(int64_t elementBytes) const {
  for (int64_t mode : {32, 64, 128})
    if (forMode(mode, elementBytes) == std::optional<Swizzle>(*this))
      return mode;
  return std::nullopt;
}

int64_t Swizzle::getTmaSwizzleEnum(int64_t modeBytes) {
  return modeBytes == 32 ? 1 : modeBytes == 64 ? 2 : modeBytes == 128 ? 3 : 0;
}

int64_t Swizzle::getWgmmaLayoutType(int64_t modeBytes) {
  return modeBytes == 128 ? 1 : modeBytes == 64 ? 2 : modeBytes == 32 ? 3 : 0;
}

Layout::Layout(ArrayRef<DimFactors> dims, unsigned outRank,
               std::optional<Swizzle> swizzle)
    : dims(dims.begin(), dims.end()), outRank(outRank), swizzle(swizzle) {
  assert(!swizzle || outRank == 1);
#ifndef NDEBUG
  for (const DimFactors &factors : dims)
    for (const LayoutFactor &f : factors)
      assert(f.size >= 1 && f.stride >= 0 && f.outDim < outRank &&
             "malformed layout factor");
#endif
}

Layout Layout::rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<DimFactors> dims(shape.size());
  int64_t stride = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    dims[d].push_back({shape[d], 0, stride});
    stride *= shape[d];
  }
  return Layout(dims, 1);
}

Layout Layout::identity(ArrayRef<int64_t> shape) {
  SmallVector<DimFactors> dims(shape.size());
  for (auto [d, size] : llvm::enumerate(shape))
    dims[d].push_back({size, static_cast<unsigned>(d), 1});
  return Layout(dims, shape.size());
}

SmallVector<int64_t> Layout::getInShape() const {
  SmallVector<int64_t> shape;
  for (const DimFactors &factors : dims) {
    int64_t size = 1;
    for (const LayoutFactor &f : factors)
      size *= f.size;
    shape.push_back(size);
  }
  return shape;
}

int64_t Layout::getInSize() const {
  int64_t size = 1;
  for (int64_t s : getInShape())
    size *= s;
  return size;
}

SmallVector<int64_t> Layout::apply(ArrayRef<int64_t> index) const {
  assert(index.size() == dims.size() && "index rank mismatch");
  SmallVector<int64_t> out(outRank, 0);
  for (auto [d, factors] : llvm::enumerate(dims)) {
    int64_t value = index[d];
    for (const LayoutFactor &f : llvm::reverse(factors)) {
      out[f.outDim] += (value % f.size) * f.stride;
      value /= f.size;
    }
  }
  if (swizzle)
    out[0] = swizzle->apply(out[0]);
  return out;
}

SmallVector<int64_t> Layout::delinearize(int64_t linearIndex) const {
  SmallVector<int64_t> shape = getInShape();
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[d] = linearIndex % shape[d];
    linearIndex /= shape[d];
  }
  return index;
}

SmallVector<int64_t> Layout::applyLinear(int64_t linearIndex) const {
  return apply(delinearize(linearIndex));
}

SmallVector<int64_t> Layout::getOutExtents() const {
  SmallVector<int64_t> extents(outRank, 1);
  for (const DimFactors &factors : dims)
    for (const LayoutFactor &f : factors)
      extents[f.outDim] += (f.size - 1) * f.stride;
  if (!swizzle)
    return extents;
  // A swizzle permutes offsets inside aligned blocks; the largest offset is
  // found by looking.
  int64_t largest = 0;
  for (int64_t i = 0, e = getInSize(); i < e; ++i)
    largest = std::max(largest, applyLinear(i)[0]);
  extents[0] = largest + 1;
  return extents;
}

/// Factors of one output dim sorted by stride do not overlap: a sufficient
/// condition for injectivity that needs no enumeration.
static bool hasDisjointDigits(ArrayRef<Layout::DimFactors> dims,
                              unsigned outRank) {
  for (unsigned o = 0; o < outRank; ++o) {
    SmallVector<LayoutFactor> factors;
    for (const Layout::DimFactors &dim : dims)
      for (const LayoutFactor &f : dim)
        if (f.size > 1 && f.outDim == o)
          factors.push_back(f);
    llvm::sort(factors, [](const LayoutFactor &a, const LayoutFactor &b) {
      return a.stride < b.stride;
    });
    int64_t reach = 1;
    for (const LayoutFactor &f : factors) {
      if (f.stride < reach)
        return false;
      reach = f.stride * f.size;
    }
  }
  return true;
}

std::optional<std::pair<int64_t, int64_t>> Layout::findCollision() const {
  int64_t points = getInSize();
  if (points > kMaxEnumeratedPoints)
    return std::nullopt;
  // Swizzles are bijections on offsets: they cannot create collisions.
  Layout unswizzled(dims, outRank);
  SmallVector<int64_t> extents = unswizzled.getOutExtents();
  llvm::DenseMap<int64_t, int64_t> seen;
  for (int64_t i = 0; i < points; ++i) {
    SmallVector<int64_t> out = unswizzled.applyLinear(i);
    int64_t linear = 0;
    for (auto [value, extent] : llvm::zip(out, extents))
      linear = linear * extent + value;
    auto [it, inserted] = seen.try_emplace(linear, i);
    if (!inserted)
      return std::make_pair(it->second, i);
  }
  return std::nullopt;
}

bool Layout::isInjective() const {
  if (hasDisjointDigits(dims, outRank))
    return true;
  if (getInSize() > kMaxEnumeratedPoints)
    return false; // Cannot prove it.
  return !findCollision();
}

bool Layout::isBijective() const {
  if (!isInjective())
    return false;
  int64_t image = 1;
  for (int64_t e : getOutExtents())
    image *= e;
  return image == getInSize();
}

Layout Layout::simplify() const {
  SmallVector<DimFactors> result;
  for (const DimFactors &factors : dims) {
    DimFactors merged;
    for (const LayoutFactor &f : factors) {
      if (f.size == 1)
        continue;
      // `f` is inner to merged.back(): they merge when the outer one starts
      // where the inner one ends.
      if (!merged.empty() && merged.back().outDim == f.outDim &&
          merged.back().stride == f.stride * f.size) {
        merged.back() = {merged.back().size * f.size, f.outDim, f.stride};
        continue;
      }
      merged.push_back(f);
    }
    result.push_back(std::move(merged));
  }
  return Layout(result, outRank, swizzle);
}

namespace {
/// The digits of one dimension, innermost first, with their radix positions:
/// digit i counts in steps of `position(i)` of the dimension's index.
struct Digits {
  SmallVector<LayoutFactor> innerFirst;

  explicit Digits(ArrayRef<LayoutFactor> outerFirst)
      : innerFirst(llvm::reverse(outerFirst)) {}

  int64_t extent() const {
    int64_t e = 1;
    for (const LayoutFactor &f : innerFirst)
      e *= f.size;
    return e;
  }

  /// Splits a digit so that `position` falls on a digit boundary.
  LogicalResult splitAt(int64_t position) {
    int64_t radix = 1;
    for (size_t i = 0; i < innerFirst.size(); ++i) {
      if (position == radix)
        return success();
      int64_t next = radix * innerFirst[i].size;
      if (position < next) {
        if (position % radix != 0)
          return failure();
        int64_t low = position / radix;
        LayoutFactor f = innerFirst[i];
        if (f.size % low != 0)
          return failure();
        innerFirst[i] = {low, f.outDim, f.stride};
        innerFirst.insert(innerFirst.begin() + i + 1,
                          {f.size / low, f.outDim, f.stride * low});
        return success();
      }
      radix = next;
    }
    return success(position == radix);
  }

  /// The digits covering positions [from, to), outermost first. Requires
  /// both ends to be digit boundaries.
  SmallVector<LayoutFactor> range(int64_t from, int64_t to,
                                  SmallVectorImpl<unsigned> &used) const {
    SmallVector<LayoutFactor> result;
    int64_t radix = 1;
    for (auto [i, f] : llvm::enumerate(innerFirst)) {
      if (radix >= from && radix < to) {
        result.push_back(f);
        used.push_back(i);
      }
      radix *= f.size;
    }
    std::reverse(result.begin(), result.end());
    return result;
  }
};
} // namespace

FailureOr<Layout> Layout::compose(const Layout &inner) const {
  if (inner.getOutRank() != getInRank() || inner.getSwizzle())
    return failure();
  Layout outer = simplify();
  SmallVector<Digits> digits;
  for (const DimFactors &factors : outer.dims)
    digits.emplace_back(factors);

  // Every inner factor must start and end on a digit boundary of the
  // dimension it feeds.
  for (const DimFactors &factors : inner.dims) {
    for (const LayoutFactor &f : factors) {
      if (f.size == 1 || f.stride == 0)
        continue;
      Digits &target = digits[f.outDim];
      if (f.stride * f.size > target.extent())
        return failure();
      if (failed(target.splitAt(f.stride)) ||
          failed(target.splitAt(f.stride * f.size)))
        return failure();
    }
  }

  SmallVector<SmallVector<unsigned>> used(digits.size());
  SmallVector<DimFactors> result;
  for (const DimFactors &factors : inner.dims) {
    DimFactors composed;
    for (const LayoutFactor &f : factors) {
      if (f.size == 1)
        continue;
      if (f.stride == 0) {
        composed.push_back({f.size, 0, 0});
        continue;
      }
      SmallVector<unsigned> taken;
      SmallVector<LayoutFactor> range =
          digits[f.outDim].range(f.stride, f.stride * f.size, taken);
      for (unsigned digit : taken) {
        if (llvm::is_contained(used[f.outDim], digit))
          return failure(); // Two inner factors overlap: carries.
        used[f.outDim].push_back(digit);
      }
      composed.append(range.begin(), range.end());
    }
    result.push_back(std::move(composed));
  }
  return Layout(result, outRank, swizzle);
}

FailureOr<Layout> Layout::inverse() const {
  if (swizzle || !isInjective())
    return failure();
  struct Entry {
    LayoutFactor factor;
    unsigned inDim;
    int64_t position;
  };
  SmallVector<SmallVector<Entry>> byOut(outRank);
  for (auto [d, factors] : llvm::enumerate(dims)) {
    int64_t position = 1;
    for (const LayoutFactor &f : llvm::reverse(factors)) {
      if (f.size > 1)
        byOut[f.outDim].push_back({f, static_cast<unsigned>(d), position});
      position *= f.size;
    }
  }
  SmallVector<DimFactors> result;
  for (SmallVector<Entry> &entries : byOut) {
    llvm::sort(entries, [](const Entry &a, const Entry &b) {
      return a.factor.stride < b.factor.stride;
    });
    int64_t expected = 1;
    DimFactors factors;
    for (const Entry &e : entries) {
      if (e.factor.stride != expected)
        return failure(); // A gap: the image is not a compact box.
      expected *= e.factor.size;
      factors.push_back({e.factor.size, e.inDim, e.position});
    }
    std::reverse(factors.begin(), factors.end());
    result.push_back(std::move(factors));
  }
  return Layout(result, getInRank());
}

FailureOr<Layout> Layout::reshapeInput(ArrayRef<int64_t> newShape) const {
  int64_t total = 1;
  for (int64_t s : newShape) {
    if (s <= 0)
      return failure();
    total *= s;
  }
  if (total != getInSize())
    return failure();
  DimFactors flat;
  for (const DimFactors &factors : simplify().dims)
    flat.append(factors.begin(), factors.end());
  Digits digits(flat);
  int64_t position = 1;
  SmallVector<int64_t> bounds{1};
  for (int64_t s : llvm::reverse(newShape)) {
    position *= s;
    if (failed(digits.splitAt(position)))
      return failure();
    bounds.push_back(position);
  }
  SmallVector<DimFactors> result(newShape.size());
  SmallVector<unsigned> used;
  for (size_t d = 0; d < newShape.size(); ++d) {
    size_t fromInner = newShape.size() - 1 - d;
    SmallVector<LayoutFactor> range =
        digits.range(bounds[fromInner], bounds[fromInner + 1], used);
    result[d].append(range.begin(), range.end());
  }
  return Layout(result, outRank, swizzle);
}

Layout Layout::repeat(unsigned dim, LayoutFactor factor) const {
  SmallVector<DimFactors> result(dims.begin(), dims.end());
  result[dim].insert(result[dim].begin(), factor);
  return Layout(result, outRank, swizzle);
}

Layout Layout::insertDim(unsigned pos, ArrayRef<LayoutFactor> factors) const {
  SmallVector<DimFactors> result(dims.begin(), dims.end());
  result.insert(result.begin() + pos, DimFactors(factors));
  return Layout(result, outRank, swizzle);
}

Layout Layout::dropDim(unsigned dim,
                       SmallVectorImpl<LayoutFactor> *removed) const {
  SmallVector<DimFactors> result(dims.begin(), dims.end());
  if (removed)
    removed->append(result[dim].begin(), result[dim].end());
  result.erase(result.begin() + dim);
  return Layout(result, outRank, swizzle);
}

Layout Layout::permuteInput(ArrayRef<unsigned> perm) const {
  assert(perm.size() == dims.size() && "permutation rank mismatch");
  SmallVector<DimFactors> result;
  for (unsigned d : perm)
    result.push_back(dims[d]);
  return Layout(result, outRank, swizzle);
}

FailureOr<Layout> Layout::rescale(unsigned dim, int64_t k) const {
  if (k < 1)
    return failure();
  if (k == 1)
    return *this;
  Layout s = simplify();
  SmallVector<DimFactors> result(s.dims.begin(), s.dims.end());
  if (result[dim].empty())
    return failure();
  LayoutFactor inner = result[dim].back();
  if (inner.stride != 1 || inner.size % k != 0)
    return failure();
  unsigned out = inner.outDim;
  std::optional<Swizzle> newSwizzle = swizzle;
  if (swizzle && out == 0) {
    if (!llvm::isPowerOf2_64(k) || llvm::Log2_64(k) > swizzle->base)
      return failure();
    newSwizzle->base -= llvm::Log2_64(k);
  }
  for (DimFactors &factors : result)
    for (LayoutFactor &f : factors) {
      if (&f == &result[dim].back() || f.outDim != out)
        continue;
      if (f.stride % k != 0)
        return failure();
      f.stride /= k;
    }
  if (inner.size == k)
    result[dim].pop_back();
  else
    result[dim].back().size = inner.size / k;
  return Layout(result, outRank, newSwizzle);
}

Layout Layout::compactOutput(unsigned outDim) const {
  SmallVector<DimFactors> result(dims.begin(), dims.end());
  SmallVector<LayoutFactor *> onOut;
  for (DimFactors &factors : result)
    for (LayoutFactor &f : factors)
      if (f.outDim == outDim && f.size > 1 && f.stride > 0)
        onOut.push_back(&f);
  llvm::sort(onOut, [](const LayoutFactor *a, const LayoutFactor *b) {
    return a->stride < b->stride;
  });
  int64_t stride = 1;
  for (LayoutFactor *f : onOut) {
    f->stride = stride;
    stride *= f->size;
  }
  return Layout(result, outRank, swizzle);
}

bool Layout::operator==(const Layout &o) const {
  if (outRank != o.outRank || dims.size() != o.dims.size())
    return false;
  if (swizzle.has_value() != o.swizzle.has_value() ||
      (swizzle && !(*swizzle == *o.swizzle)))
    return false;
  for (auto [a, b] : llvm::zip(dims, o.dims))
    if (!llvm::equal(a, b))
      return false;
  return true;
}

void Layout::print(raw_ostream &os) const {
  os << "[";
  llvm::interleaveComma(dims, os, [&](const DimFactors &factors) {
    os << "[";
    llvm::interleaveComma(factors, os, [&](const LayoutFactor &f) {
      os << f.size << ":o" << f.outDim << "*" << f.stride;
    });
    os << "]";
  });
  os << "]";
  if (swizzle)
    os << " swizzle<" << swizzle->bits << "," << swizzle->base << ","
       << swizzle->shift << ">";
}

void mlir::tile::printOffsetTable(const Layout &layout, raw_ostream &os) {
  if (layout.getInRank() != 2 || layout.getOutRank() != 1) {
    os << "(no table for this layout)\n";
    return;
  }
  SmallVector<int64_t> shape = layout.getInShape();
  int64_t width = std::to_string(layout.getOutExtents()[0] - 1).size();
  for (int64_t r = 0; r < shape[0]; ++r) {
    for (int64_t c = 0; c < shape[1]; ++c) {
      std::string cell = std::to_string(layout.apply({r, c})[0]);
      os << std::string(width - cell.size(), ' ') << cell
         << (c + 1 < shape[1] ? " " : "\n");
    }
  }
}

std::string Layout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}
