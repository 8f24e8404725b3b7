//===- Copies.h - What the data-movement lowerings share --------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu: the pieces the lowerings of tile.copy,
// tile.fill, tile.atomic_add (Copies.cpp) and tile.parallel (Parallel.cpp)
// share. One side of a data movement and its element and vector accesses of
// global and shared memory (MemoryAccess.cpp); loads and stores of a
// fragment's slots, and whole fragments moved to and from memory
// (FragmentSlots.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_COPIES_H
#define TILE_LIB_CONVERSION_TILETOGPU_COPIES_H

#include "KernelContext.h"

#include "llvm/ADT/DenseSet.h"

namespace mlir::tile::gpu_lowering {

//===----------------------------------------------------------------------===//
// Sides of a data movement (MemoryAccess.cpp)
//===----------------------------------------------------------------------===//

/// One side of a data movement: how to read or write an element at a
/// logical index of the tile.
struct Side {
  enum Kind { Global, Shared, Fragment } kind;
  Value value;                    // the original tile-level value
  SmallVector<Value> offsets;     // Global: the tile's origin
  const SharedStorage *sharedBuffer = nullptr;
  const FragmentStorage *fragment = nullptr;

  Type getElementType() const {
    if (sharedBuffer)
      return sharedBuffer->type.getElementType();
    if (fragment)
      return fragment->type.getElementType();
    return cast<ShapedType>(value.getType()).getElementType();
  }
};

/// The side of a data movement that `value` is: its fragment or shared
/// storage in `k`, else a global memref, whose tile starts at `offsets`.
Side describe(const KernelContext &k, OpBuilder &b, Location loc, Value value,
              ArrayRef<OpFoldResult> offsets);
/// The side of a data movement that a shared buffer (or scratch) is.
Side sharedSide(const SharedStorage &shared);

/// The global index of the tile's `index` on a global side.
SmallVector<Value> globalIndex(OpBuilder &b, Location loc, const Side &side,
                               ValueRange index);
/// Reads the element at `index` of a global or shared side.
Value readMemory(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, TypedAttr pad);
/// Writes `v` at `index` of a global or shared side.
void writeMemory(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, Value v);

/// `layout` (a fragment) with each run of `width` innermost elements as one
/// element: failure unless every run sits in consecutive slots of one
/// thread.
FailureOr<Layout> rescaleSlotRuns(const Layout &layout, int64_t width);
/// Whether runs of `width` elements along the innermost dim of `side` can
/// be moved as one vector (ignoring the alignment of global addresses,
/// which alignmentOfSides tests at run time).
bool allowsVectors(const Side &side, int64_t width);
/// The widest vector (at most 16 bytes) that divides the innermost extent
/// and that every side allows; 1 when there is none. Vectors between
/// memories need equal element types; a fragment side converts element by
/// element (its slots are registers), and the memory side sets the width.
int64_t chooseVectorWidth(ArrayRef<const Side *> sides,
                          ArrayRef<int64_t> shape);
/// Reads `width` elements from `index` on a shared or global side.
Value readVector(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, int64_t width,
                 TypedAttr pad);
/// Writes the vector `v` at `index` of a shared or global side.
void writeVector(const KernelContext &k, OpBuilder &b, Location loc,
                 const Side &side, ValueRange index, Value v);
/// Adds the vector `v` atomically at `index` of a global side: in one
/// instruction of the target's where the whole vector is in bounds, else
/// element by element.
void atomicAddVector(const KernelContext &k, OpBuilder &b, Location loc,
                     const Side &side, ValueRange index, Value v);
/// Runs `vectorBody` when `aligned` holds (always when null), else
/// `scalarBody`.
void withAlignment(OpBuilder &b, Location loc, Value aligned,
                   function_ref<void(OpBuilder &)> vectorBody,
                   function_ref<void(OpBuilder &)> scalarBody);
/// The alignment check of whichever sides are global (null if none is).
Value alignmentOfSides(const KernelContext &k, OpBuilder &b, Location loc,
                       ArrayRef<const Side *> sides, int64_t width);

//===----------------------------------------------------------------------===//
// Fragment slots (FragmentSlots.cpp)
//===----------------------------------------------------------------------===//

/// Each thread writes its elements (copy 0) of `fragment` to `dst`.
void storeFragment(const KernelContext &k, OpBuilder &b, Location loc,
                   const FragmentStorage &fragment, const Side &dst);
/// Each thread fills every slot of `fragment` from `src`.
void loadFragment(const KernelContext &k, OpBuilder &b, Location loc,
                  const Side &src, const FragmentStorage &fragment,
                  TypedAttr pad);

//===----------------------------------------------------------------------===//
// tile.parallel (Parallel.cpp)
//===----------------------------------------------------------------------===//

/// How a tile.parallel runs each of a thread's runs of `width` consecutive
/// slots (consecutive indices of its innermost dim) as one iteration on
/// vectors (ParallelVectors.cpp).
struct ParallelVectors {
  /// An index of the form (iv + offset) floordiv divisor, iv the innermost
  /// induction variable and `offset` computable before the loop (null: 0).
  /// The run's first iteration starts at a multiple of the run's width and
  /// the offsets are checked to be multiples of what each use needs, so a
  /// run of such an index is known: consecutive (divisor 1), each value
  /// repeated `divisor` times (a divisor of the width), or one value (a
  /// multiple of the width).
  struct Affine {
    Value offset;
    int64_t divisor = 1;
  };
  /// A load or store at such an innermost index: `chunk` elements per
  /// vector access (a load with a divisor reads width / divisor elements
  /// and repeats each).
  struct Run {
    int64_t chunk;
    Affine index;
  };
  int64_t width = 1;
  /// The body's values that differ between a run's iterations.
  llvm::DenseSet<Value> varying;
  /// Varying indices of the affine form.
  llvm::DenseMap<Value, Affine> affine;
  /// Indices computed from the induction variable that are the same across
  /// a run (a divisor that is a multiple of the width): not varying.
  llvm::DenseSet<Value> uniform;
  /// (iv + offset) mod d with d dividing the width: lane l's value is
  /// l mod d.
  llvm::DenseMap<Value, int64_t> cyclic;
  llvm::DenseMap<Operation *, Run> runs;
  /// Offsets that must be multiples of these for the forms above to hold
  /// (tested before the loop with the alignment).
  SmallVector<std::pair<Value, int64_t>> alignedOffsets;

  bool isVarying(Value v) const { return varying.contains(v); }
};

/// The vector plan of `op`, or std::nullopt when the scalar code is as
/// good (no memory access in vectors) or the body cannot run on vectors
/// (regions, side effects, several iterations storing to one element).
std::optional<ParallelVectors> planParallelVectors(const KernelContext &k,
                                                   OpBuilder &b, ParallelOp op,
                                                   const Layout &loop);
/// i1: every vector access of the plan is aligned (global rows and run-time
/// offsets); null when that holds by construction.
Value buildParallelAlignment(const KernelContext &k, OpBuilder &b,
                             ParallelOp op, const ParallelVectors &plan);
/// The runs of `op` a thread holds, each once on vectors.
LogicalResult buildVectorIterations(const KernelContext &k, OpBuilder &b,
                                    ParallelOp op, const Layout &loop,
                                    const ParallelVectors &plan);

/// The slot offset of the uniformly indexed dims of a fragment access in a
/// tile.parallel body (kUniformDim in `dims`): their indices' slot digits
/// in the fragment's layout; null when there are none.
Value uniformSlotOffset(OpBuilder &b, Location loc,
                        const FragmentStorage &fragment, ValueRange indices,
                        ArrayRef<unsigned> dims);

/// Lowers a tile.parallel: its body once per slot of the loop layout a
/// thread holds, with element accesses turned into slot and memory
/// accesses (tile.parallel's lowering model, attachCopyLowerings).
LogicalResult lowerParallel(const KernelContext &k, PatternRewriter &rewriter,
                            ParallelOp op);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_COPIES_H
