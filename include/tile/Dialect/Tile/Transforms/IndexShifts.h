//===- IndexShifts.h - Values' shifts between merged instances -*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Transforms that run several instances of a region as one (consecutive
// iterations of a pipelined loop, tile-widen-k-steps; neighbouring blocks of
// a grid, tile-merge-blocks) widen the buffers the instances fill along one
// dim and the tile.parallel loops that compute them along one of theirs.
// They are right where every index and value the merged body computes
// differs from the next instance's by a constant: its shift. With `v(I)` a
// value in instance I at the position where the merged body, run for
// instance I, does what instance I + 1 did (iteration j + W of a parallel
// widened from W to 2 W), the shift is the `d` with
//
//   v(I, merged position) == v(I + 1) + d   for every I and position.
//
// A loop's induction variable stepping by `s` shifts by -s, a block index
// by -1, a widened parallel's induction variable by its extent `W`; an
// index into a widened buffer along its widened dim must shift by the
// buffer's extent there (the merged body reads the next instance's element
// in the buffer's second part), any other index and any stored value by 0.
// Affine arithmetic and floor division by a divisor of the shift are
// exact, so a transform that checked one step holds for every instance
// (the shift of instance I + n is n d).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_INDEXSHIFTS_H
#define TILE_DIALECT_TILE_TRANSFORMS_INDEXSHIFTS_H

#include "mlir/IR/Region.h"
#include "mlir/IR/Value.h"
#include "mlir/IR/ValueRange.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <optional>

namespace mlir::tile {

class IndexShifts {
public:
  /// The shift an index into `buffer` along `dim` must have for a load of
  /// it to read, in the merged body, the next instance's element; none
  /// where loads from `buffer` do not merge.
  using AccessShiftFn =
      std::function<std::optional<int64_t>(Value buffer, unsigned dim)>;

  /// `seeds` are the values the instances differ in and their shifts. Any
  /// other block argument, any value defined outside `scope` and any
  /// constant shifts by 0; a tile.load or memref.load shifts by 0 where
  /// its indices shift as `accessShift` says (it reads the same element),
  /// else has none.
  IndexShifts(Region &scope, ArrayRef<std::pair<Value, int64_t>> seeds,
              AccessShiftFn accessShift);

  /// `value`'s shift, none where it is not a constant.
  std::optional<int64_t> get(Value value);

  /// Whether `indices` into `buffer` shift as `accessShift` says.
  bool indicesMatch(Value buffer, ValueRange indices);

private:
  std::optional<int64_t> compute(Value value);

  Region &scope;
  AccessShiftFn accessShift;
  llvm::DenseMap<Value, std::optional<int64_t>> memo;
};

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_INDEXSHIFTS_H
