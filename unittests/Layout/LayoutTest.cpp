//===- LayoutTest.cpp - tests of the layout algebra -----------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/Layout.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

using Dims = SmallVector<Layout::DimFactors>;

/// The f32 accumulator of mma.sync.m16n8k16 as (row, col, replica) ->
/// (thread, slot), written from its factors.
Layout mmaAccumulator() {
  return Layout(Dims{{{2, 1, 2}, {8, 0, 4}}, {{4, 0, 1}, {2, 1, 1}}, {}}, 2);
}

// tile's code is built with assertions unless TILE_ENABLE_ASSERTIONS is OFF
// (CMakeLists.txt adds -UNDEBUG), so a broken invariant in the layout
// library aborts with a message; the mutation tests (test/Robustness) count
// on it. Debian's LLVM and MLIR have no assertions of their own.
TEST(LayoutDeathTest, MalformedFactorAsserts) {
#ifdef NDEBUG
  GTEST_SKIP() << "built without assertions (TILE_ENABLE_ASSERTIONS=OFF)";
#else
  EXPECT_DEATH(Layout(Dims{{{0, 0, 1}}}, 1), "malformed layout factor");
  EXPECT_DEATH(Layout(Dims{{{4, 1, 1}}}, 1), "malformed layout factor");
#endif
}

TEST(LayoutTest, RowMajorIsBijective) {
  Layout l = Layout::rowMajor({4, 6, 5});
  EXPECT_EQ(l.getInSize(), 120);
  EXPECT_EQ(l.apply({1, 2, 3}), (SmallVector<int64_t>{1 * 30 + 2 * 5 + 3}));
  EXPECT_TRUE(l.isBijective());
  EXPECT_EQ(l.getOutExtents(), (SmallVector<int64_t>{120}));
}

TEST(LayoutTest, MmaAccumulatorMatchesPtxTable) {
  // PTX ISA, mma.m16n8k16 C/D fragment: groupID = lane >> 2,
  // threadID_in_group = lane % 4; c0,c1 at row groupID, c2,c3 at row
  // groupID + 8; column threadID_in_group * 2 + (i & 1).
  Layout l = mmaAccumulator();
  for (int64_t lane = 0; lane < 32; ++lane) {
    for (int64_t i = 0; i < 4; ++i) {
      int64_t row = (lane >> 2) + (i >= 2 ? 8 : 0);
      int64_t col = (lane % 4) * 2 + (i & 1);
      EXPECT_EQ(l.apply({row, col, 0}), (SmallVector<int64_t>{lane, i}))
          << "row " << row << " col " << col;
    }
  }
  EXPECT_TRUE(l.isBijective());
  EXPECT_EQ(l.getOutExtents(), (SmallVector<int64_t>{32, 4}));
}

TEST(LayoutTest, InverseUndoesTheLayout) {
  Layout l = mmaAccumulator();
  FailureOr<Layout> inv = l.inverse();
  ASSERT_TRUE(succeeded(inv));
  EXPECT_EQ(inv->getInShape(), (SmallVector<int64_t>{32, 4}));
  for (int64_t i = 0; i < l.getInSize(); ++i) {
    SmallVector<int64_t> index = l.delinearize(i);
    EXPECT_EQ(inv->apply(l.apply(index)), index);
  }
  // Composing either way gives the identity on every point.
  FailureOr<Layout> roundTrip = inv->compose(l);
  ASSERT_TRUE(succeeded(roundTrip));
  for (int64_t i = 0; i < l.getInSize(); ++i)
    EXPECT_EQ(roundTrip->applyLinear(i), l.delinearize(i));
}

TEST(LayoutTest, InverseRefusesGapsSwizzlesAndCollisions) {
  // Slots 0 and 2 only: not a compact image.
  EXPECT_TRUE(failed(Layout(Dims{{{2, 0, 2}}}, 1).inverse()));
  EXPECT_TRUE(
      failed(Layout(Dims{{{8, 0, 64}}, {{64, 0, 1}}}, 1, Swizzle{3, 3, 3})
                 .inverse()));
  EXPECT_TRUE(failed(Layout(Dims{{{2, 0, 1}}, {{2, 0, 1}}}, 1).inverse()));
}

TEST(LayoutTest, ComposeWithTranspose) {
  // (j, i) -> (i, j) followed by row-major 8x4: offset i * 4 + j.
  Layout transpose(Dims{{{4, 1, 1}}, {{8, 0, 1}}}, 2);
  Layout rowMajor = Layout::rowMajor({8, 4});
  FailureOr<Layout> c = rowMajor.compose(transpose);
  ASSERT_TRUE(succeeded(c));
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t i = 0; i < 8; ++i)
      EXPECT_EQ(c->apply({j, i}), (SmallVector<int64_t>{i * 4 + j}));
}

TEST(LayoutTest, ComposeSplitsDigits) {
  // Viewing a row-major 16x8 tile through an inner layout whose factors cut
  // across the outer digits: inner maps a flat index of 128 to (row, col)
  // as (x / 8, x % 8) but written with 4 factors.
  Layout inner(Dims{{{4, 0, 4}, {4, 0, 1}, {2, 1, 4}, {4, 1, 1}}}, 2);
  Layout outer = Layout::rowMajor({16, 8});
  FailureOr<Layout> c = outer.compose(inner);
  ASSERT_TRUE(succeeded(c));
  for (int64_t x = 0; x < 128; ++x)
    EXPECT_EQ(c->apply({x}), outer.apply(inner.apply({x})));
}

TEST(LayoutTest, ComposeRefusesCarries) {
  // Digits of sizes 2 (inner) and 3 (outer) that do not merge: an inner
  // factor of stride 3 cannot land on whole digits.
  Layout outer(Dims{{{3, 0, 1}, {2, 0, 3}}}, 1);
  Layout inner(Dims{{{2, 0, 3}}}, 1);
  EXPECT_TRUE(failed(outer.compose(inner)));
  // Nor may an inner factor reach past the outer dim's extent.
  EXPECT_TRUE(failed(outer.compose(Layout(Dims{{{4, 0, 2}}}, 1))));
  // Two inner factors on the same digits would need carries.
  EXPECT_TRUE(failed(
      outer.compose(Layout(Dims{{{2, 0, 1}}, {{2, 0, 1}}}, 1))));
}

TEST(LayoutTest, InjectivityBeyondDisjointDigits) {
  // Strides 2 and 3: offsets {0, 2, 3, 5}, injective though digits overlap.
  Layout odd(Dims{{{2, 0, 2}}, {{2, 0, 3}}}, 1);
  EXPECT_TRUE(odd.isInjective());
  EXPECT_FALSE(odd.isBijective());
  Layout clash(Dims{{{2, 0, 1}}, {{2, 0, 1}}}, 1);
  EXPECT_FALSE(clash.isInjective());
  auto collision = clash.findCollision();
  ASSERT_TRUE(collision.has_value());
  EXPECT_EQ(clash.applyLinear(collision->first),
            clash.applyLinear(collision->second));
  EXPECT_NE(collision->first, collision->second);
}

TEST(LayoutTest, ReplicationIsAnExtraInputDim) {
  // A 16-element vector held by lanes 0..15 and again by lanes 16..31.
  Layout l(Dims{{{16, 0, 1}}, {{2, 0, 16}}}, 2);
  EXPECT_TRUE(l.isInjective());
  EXPECT_EQ(l.apply({5, 1}), (SmallVector<int64_t>{21, 0}));
  // Without the replica offset, copies would collide.
  EXPECT_FALSE(Layout(Dims{{{16, 0, 1}}, {{2, 0, 0}}}, 2).isInjective());
}

TEST(LayoutTest, Swizzle128BytesIsConflictFree) {
  // One 128-byte swizzle atom of f16: 8 rows of 64 elements.
  std::optional<Swizzle> s = Swizzle::forMode(128, 2);
  ASSERT_TRUE(s.has_value());
  Layout l(Dims{{{8, 0, 64}}, {{64, 0, 1}}}, 1, s);
  EXPECT_TRUE(l.isBijective());
  for (int64_t row = 0; row < 8; ++row)
    for (int64_t col = 0; col < 64; ++col) {
      // TMA's 128B pattern: the 16-byte chunk index is XOR-ed with row % 8.
      int64_t chunk = (col / 8) ^ (row % 8);
      EXPECT_EQ(l.apply({row, col})[0], row * 64 + chunk * 8 + col % 8);
    }
  // ldmatrix reads one 16-byte row per lane of 8 lanes: for every logical
  // chunk column, the 8 rows land in 8 distinct 16-byte bank groups.
  for (int64_t chunk = 0; chunk < 8; ++chunk) {
    SmallVector<bool> used(8, false);
    for (int64_t row = 0; row < 8; ++row) {
      int64_t bankGroup = (l.apply({row, chunk * 8})[0] * 2 / 16) % 8;
      EXPECT_FALSE(used[bankGroup]) << "chunk " << chunk << " row " << row;
      used[bankGroup] = true;
    }
  }
}

TEST(LayoutTest, SwizzleDescriptorEncodings) {
  for (int64_t bytes : {1, 2, 4}) {
    for (int64_t mode : {32, 64, 128}) {
      std::optional<Swizzle> s = Swizzle::forMode(mode, bytes);
      ASSERT_TRUE(s.has_value());
      EXPECT_EQ(s->getModeBytes(bytes), mode);
    }
  }
  EXPECT_FALSE((Swizzle{3, 1, 2}.getModeBytes(2)).has_value());
  // CUtensorMapSwizzle and the wgmma descriptor's layout_type field.
  EXPECT_EQ(Swizzle::getTmaSwizzleEnum(32), 1);
  EXPECT_EQ(Swizzle::getTmaSwizzleEnum(128), 3);
  EXPECT_EQ(Swizzle::getWgmmaLayoutType(128), 1);
  EXPECT_EQ(Swizzle::getWgmmaLayoutType(32), 3);
}

TEST(LayoutTest, SwizzleModes) {
  EXPECT_EQ(Swizzle::forMode(64, 2), (Swizzle{2, 3, 3}));
  EXPECT_EQ(Swizzle::forMode(32, 4), (Swizzle{1, 2, 3}));
  EXPECT_EQ(Swizzle::forMode(128, 1), (Swizzle{3, 4, 3}));
  EXPECT_FALSE(Swizzle::forMode(16, 2).has_value());
  EXPECT_FALSE(Swizzle::forMode(128, 3).has_value());
}

TEST(LayoutTest, ReshapeInput) {
  Layout l = Layout::rowMajor({4, 8});
  FailureOr<Layout> flat = l.reshapeInput({32});
  ASSERT_TRUE(succeeded(flat));
  for (int64_t x = 0; x < 32; ++x)
    EXPECT_EQ(flat->apply({x}), (SmallVector<int64_t>{x}));
  // The mma accumulator seen as 2 x 8 x 8 rows of (row-half, row, col).
  Layout mma = mmaAccumulator();
  FailureOr<Layout> split = mma.reshapeInput({2, 8, 8});
  ASSERT_TRUE(succeeded(split));
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t r = 0; r < 8; ++r)
      for (int64_t c = 0; c < 8; ++c)
        EXPECT_EQ(split->apply({h, r, c}), mma.apply({h * 8 + r, c, 0}));
  // Sizes must agree, and splits must fall on divisible digits.
  EXPECT_TRUE(failed(l.reshapeInput({31})));
  EXPECT_TRUE(failed(Layout(Dims{{{3, 0, 1}, {2, 0, 3}}}, 1).reshapeInput(
      {2, 3})));
  // Mergeable digits split anywhere their product divides.
  EXPECT_TRUE(succeeded(Layout(Dims{{{3, 0, 2}, {2, 0, 1}}}, 1).reshapeInput(
      {2, 3})));
}

TEST(LayoutTest, SimplifyMergesContinuingFactors) {
  Layout l(Dims{{{2, 0, 8}, {1, 0, 99}, {8, 0, 1}}}, 1);
  Layout s = l.simplify();
  EXPECT_EQ(s, Layout(Dims{{{16, 0, 1}}}, 1));
  for (int64_t x = 0; x < 16; ++x)
    EXPECT_EQ(s.apply({x}), l.apply({x}));
}

TEST(LayoutTest, PaddedExtents) {
  // 4 rows of 8 with 2 elements of padding: rows start 10 apart.
  Layout l(Dims{{{4, 0, 10}}, {{8, 0, 1}}}, 1);
  EXPECT_EQ(l.getOutExtents(), (SmallVector<int64_t>{38}));
  EXPECT_TRUE(l.isInjective());
  EXPECT_FALSE(l.isBijective());
}

TEST(LayoutTest, RescaleSwizzledRowsToVectors) {
  // A 128-byte swizzle atom of f16 viewed as 16-byte vectors: 8 rows of 8
  // vectors, vector index XOR row.
  Layout l(Dims{{{8, 0, 64}}, {{64, 0, 1}}}, 1, Swizzle::forMode(128, 2));
  FailureOr<Layout> v = l.rescale(1, 8);
  ASSERT_TRUE(succeeded(v));
  EXPECT_EQ(v->getInShape(), (SmallVector<int64_t>{8, 8}));
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t c = 0; c < 8; ++c)
      EXPECT_EQ(v->apply({r, c})[0], r * 8 + (c ^ r));
  // Column-major data has no contiguous runs along dim 1.
  Layout colMajor(Dims{{{8, 0, 1}}, {{8, 0, 8}}}, 1);
  EXPECT_TRUE(failed(colMajor.rescale(1, 2)));
  // Runs longer than the swizzle's unit cannot be grouped.
  EXPECT_TRUE(failed(l.rescale(1, 16)));
}

TEST(LayoutTest, RescaleFragmentIntoPairs) {
  // Adjacent f16 columns in adjacent slots pack into 32-bit registers.
  Layout a(Dims{{{2, 1, 2}, {8, 0, 4}}, {{2, 1, 4}, {4, 0, 1}, {2, 1, 1}},
                {}},
           2);
  FailureOr<Layout> pairs = a.rescale(1, 2);
  ASSERT_TRUE(succeeded(pairs));
  EXPECT_EQ(pairs->getInShape(), (SmallVector<int64_t>{16, 8, 1}));
  EXPECT_EQ(pairs->getOutExtents(), (SmallVector<int64_t>{32, 4}));
  EXPECT_TRUE(pairs->isBijective());
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t c = 0; c < 8; ++c) {
      SmallVector<int64_t> whole = a.apply({r, 2 * c, 0});
      EXPECT_EQ(pairs->apply({r, c, 0}),
                (SmallVector<int64_t>{whole[0], whole[1] / 2}));
    }
}

TEST(LayoutTest, RepeatInsertDropPermute) {
  Layout row = Layout::rowMajor({4});
  EXPECT_EQ(row.repeat(0, {3, 0, 4}).simplify(), Layout::rowMajor({12}));
  Layout l = Layout::rowMajor({4, 6});
  Layout t = l.permuteInput({1, 0});
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 6; ++j)
      EXPECT_EQ(t.apply({j, i}), l.apply({i, j}));
  SmallVector<LayoutFactor> removed;
  Layout dropped = l.dropDim(0, &removed);
  EXPECT_EQ(dropped.getInShape(), (SmallVector<int64_t>{6}));
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0], (LayoutFactor{4, 0, 6}));
  Layout expanded = dropped.insertDim(0, removed);
  EXPECT_EQ(expanded, l);
}

TEST(LayoutTest, CompactOutputRemovesGaps) {
  // Slots 0, 1, 4, 5: renumbered 0..3.
  Layout l(Dims{{{2, 1, 4}}, {{2, 1, 1}}}, 2);
  Layout c = l.compactOutput(1);
  EXPECT_EQ(c.getOutExtents(), (SmallVector<int64_t>{1, 4}));
  EXPECT_TRUE(c.isBijective());
  EXPECT_EQ(c.apply({1, 0}), (SmallVector<int64_t>{0, 2}));
}

} // namespace
