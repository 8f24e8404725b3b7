//===- FragmentLayouts.h - Built-in fragment layouts ------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A fragment layout is a Layout from (logical dims..., replica) to
// (thread, slot): the last input dim numbers the copies of a replicated
// element. This header builds the layouts targets need: matrix-instruction
// operand fragments (per warp or wave), their tiling over a block's warps,
// vectorized layouts for elementwise work, and the layouts of reductions.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LAYOUT_FRAGMENTLAYOUTS_H
#define TILE_LAYOUT_FRAGMENTLAYOUTS_H

#include "tile/Layout/Layout.h"

#include <set>

namespace mlir::tile {

/// Output dims of fragment layouts.
enum FragmentAxis : unsigned { kThreadAxis = 0, kSlotAxis = 1 };

/// A fragment layout from per-dim factors and replica factors.
Layout makeFragment(ArrayRef<Layout::DimFactors> dims,
                    ArrayRef<LayoutFactor> replicas = {});
/// Logical rank of a fragment layout (its inputs but the replica dim).
unsigned getFragmentRank(const Layout &fragment);
/// One past the largest thread, and slot, a fragment uses.
int64_t getThreadExtent(const Layout &fragment);
int64_t getSlotExtent(const Layout &fragment);

/// The operand fragments of one matrix instruction, for one warp (or wave):
/// A is m x k, B is k x n, C is m x n.
struct MmaAtom {
  int64_t m, n, k;
  int64_t lanes;
  Layout a, b, c;
};

/// mma.sync atoms by A/B element width: 16 bits (f16/bf16, m16n8k16), 32
/// bits (tf32, m16n8k8), 8 bits (s8/u8, m16n8k32).
std::optional<MmaAtom> getMmaSyncAtom(unsigned elementBits);
/// CDNA v_mfma_f32_16x16x16{f16,bf16} on a 64-lane wave (also
/// v_mfma_i32_16x16x16i8 of CDNA1/2: four operand elements per lane).
MmaAtom getMfma16x16x16Atom();
/// CDNA3 v_mfma_i32_16x16x32_i8: lane l holds A[l % 16][8 (l / 16) + v] and
/// B[8 (l / 16) + v][l % 16] for v < 8, C as in 16x16x16.
MmaAtom getMfma16x16x32Atom();
/// Hopper wgmma.m64nNk16: the accumulator (64 x n, 128 threads) and A from
/// registers (64 x 16).
Layout getWgmmaAccumulator(int64_t n);
Layout getWgmmaOperandA();

/// How a warp-level atom is tiled over a block, per logical dim.
struct AtomTiling {
  /// Warps along each dim, and the thread stride of one warp step.
  SmallVector<int64_t, 2> warps, warpStrides;
  /// Atom repetitions per warp along each dim (slots, outer dims first).
  SmallVector<int64_t, 2> repeats;
  /// Copies of the whole operand (e.g. warps that share an A tile).
  SmallVector<LayoutFactor, 2> replicas;
};
/// The block-level fragment: dim d is [warps_d, repeats_d, atom dim d].
Layout tileAtom(const Layout &atom, const AtomTiling &tiling);

/// A fragment spread over up to `threads` threads: runs of up to
/// `vectorBits` along the innermost dim per thread, consecutive threads on
/// consecutive runs. Dims go to threads whole (by gcd); of the thread counts
/// up to `threads`, the one that uses the most threads is taken, so that no
/// thread count leaves the tile on a few threads (33 threads spread a
/// 32 x 128 tile over 32).
Layout getVectorizedFragment(ArrayRef<int64_t> shape, unsigned elementBits,
                             int64_t threads, unsigned vectorBits = 128);

/// The 32-bit registers one thread needs to hold its slots of `fragment`
/// (`elementBits` per element, at least 16: a register holds at most two).
/// A lower bound: the compiler may need more, never fewer.
int64_t getRegistersPerThread(const Layout &fragment, unsigned elementBits);

/// The fragment that remains when logical dim `dim` of `fragment` is reduced
/// away: its thread digits become replication (every thread that held part
/// of a reduced row holds the result), its slot digits disappear, and slots
/// are renumbered densely.
Layout projectFragment(const Layout &fragment, unsigned dim);
/// `fragment` with the dims `dims` (ascending positions in the result) of
/// `shape` inserted as slot digits after its own: every thread that holds an
/// element holds all of them along those dims.
Layout insertSlotDims(Layout fragment, ArrayRef<unsigned> dims,
                      ArrayRef<int64_t> shape);

/// The threads holding the copies of logical element `index`.
std::set<int64_t> getOwners(const Layout &fragment, ArrayRef<int64_t> index);
/// Calls `fn` on every logical index of a fragment layout (row-major).
void forEachFragmentIndex(const Layout &fragment,
                          function_ref<void(ArrayRef<int64_t>)> fn);

/// The same threads hold each element of `a` and `b` (which cover the same
/// logical shape), and with `compareSlots` in the same slot.
bool haveSameOwners(const Layout &a, const Layout &b, bool compareSlots);

/// Writes a 1-d or 2-d fragment as a table: one `T<thread>:<slot>` cell per
/// element (copy 0), rows of the table being the first logical dim.
void printFragmentTable(const Layout &fragment, raw_ostream &os);

} // namespace mlir::tile

#endif // TILE_LAYOUT_FRAGMENTLAYOUTS_H
