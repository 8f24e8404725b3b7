//===- FragmentLayoutsTest.cpp - tests of the built-in fragment layouts ---===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Each instruction layout is checked against its table in the vendor's
// documentation, written here as the documentation writes it (lane and
// register index -> row and column), and every built-in layout is checked
// exhaustively for injectivity over its whole domain.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/FragmentLayouts.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <functional>
#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// Checks `layout` against a documented table: for each lane and register,
/// `where(lane, reg)` gives the (row, col) the register holds.
void expectTable(const Layout &layout, int64_t lanes, int64_t regs,
                 std::function<std::pair<int64_t, int64_t>(int64_t, int64_t)>
                     where) {
  EXPECT_EQ(getThreadExtent(layout), lanes);
  EXPECT_EQ(getSlotExtent(layout), regs);
  for (int64_t lane = 0; lane < lanes; ++lane)
    for (int64_t reg = 0; reg < regs; ++reg) {
      auto [row, col] = where(lane, reg);
      EXPECT_EQ(layout.apply({row, col, 0}),
                (SmallVector<int64_t>{lane, reg}))
          << "lane " << lane << " reg " << reg;
    }
  EXPECT_TRUE(layout.isBijective());
}

TEST(FragmentLayoutsTest, MmaSyncF16MatchesPtx) {
  std::optional<MmaAtom> atom = getMmaSyncAtom(16);
  ASSERT_TRUE(atom.has_value());
  EXPECT_EQ(std::make_tuple(atom->m, atom->n, atom->k),
            std::make_tuple(16, 8, 16));
  expectTable(atom->a, 32, 8, [](int64_t lane, int64_t i) {
    int64_t g = lane >> 2, tig = lane % 4;
    int64_t row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
    int64_t col = tig * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    return std::make_pair(row, col);
  });
  expectTable(atom->b, 32, 4, [](int64_t lane, int64_t i) {
    int64_t g = lane >> 2, tig = lane % 4;
    return std::make_pair(tig * 2 + (i & 1) + (i >= 2 ? 8 : 0), g);
  });
  expectTable(atom->c, 32, 4, [](int64_t lane, int64_t i) {
    int64_t g = lane >> 2, tig = lane % 4;
    return std::make_pair(i < 2 ? g : g + 8, tig * 2 + (i & 1));
  });
}

TEST(FragmentLayoutsTest, MmaSyncTf32MatchesPtx) {
  std::optional<MmaAtom> atom = getMmaSyncAtom(32);
  ASSERT_TRUE(atom.has_value());
  EXPECT_EQ(atom->k, 8);
  expectTable(atom->a, 32, 4, [](int64_t lane, int64_t i) {
    int64_t g = lane >> 2, tig = lane % 4;
    return std::make_pair(g + (i % 2) * 8, tig + (i / 2) * 4);
  });
  expectTable(atom->b, 32, 2, [](int64_t lane, int64_t i) {
    return std::make_pair(lane % 4 + i * 4, lane >> 2);
  });
}

TEST(FragmentLayoutsTest, MmaSyncInt8MatchesPtx) {
  std::optional<MmaAtom> atom = getMmaSyncAtom(8);
  ASSERT_TRUE(atom.has_value());
  EXPECT_EQ(atom->k, 32);
  expectTable(atom->a, 32, 16, [](int64_t lane, int64_t i) {
    int64_t g = lane >> 2, tig = lane % 4;
    int64_t row = g + ((i / 4) % 2) * 8;
    int64_t col = tig * 4 + (i % 4) + (i >= 8 ? 16 : 0);
    return std::make_pair(row, col);
  });
  expectTable(atom->b, 32, 8, [](int64_t lane, int64_t i) {
    int64_t g = lane >> 2, tig = lane % 4;
    return std::make_pair(tig * 4 + (i % 4) + (i >= 4 ? 16 : 0), g);
  });
  EXPECT_FALSE(getMmaSyncAtom(64).has_value());
}

TEST(FragmentLayoutsTest, MfmaMatchesAmdTables) {
  MmaAtom atom = getMfma16x16x16Atom();
  expectTable(atom.a, 64, 4, [](int64_t lane, int64_t v) {
    return std::make_pair(lane % 16, 4 * (lane / 16) + v);
  });
  expectTable(atom.b, 64, 4, [](int64_t lane, int64_t v) {
    return std::make_pair(4 * (lane / 16) + v, lane % 16);
  });
  expectTable(atom.c, 64, 4, [](int64_t lane, int64_t v) {
    return std::make_pair(4 * (lane / 16) + v, lane % 16);
  });
}

TEST(FragmentLayoutsTest, Mfma16x16x32MatchesAmdTables) {
  MmaAtom atom = getMfma16x16x32Atom();
  EXPECT_EQ(atom.k, 32);
  expectTable(atom.a, 64, 8, [](int64_t lane, int64_t v) {
    return std::make_pair(lane % 16, 8 * (lane / 16) + v);
  });
  expectTable(atom.b, 64, 8, [](int64_t lane, int64_t v) {
    return std::make_pair(8 * (lane / 16) + v, lane % 16);
  });
  expectTable(atom.c, 64, 4, [](int64_t lane, int64_t v) {
    return std::make_pair(4 * (lane / 16) + v, lane % 16);
  });
}

TEST(FragmentLayoutsTest, WgmmaMatchesPtx) {
  // D fragment of wgmma.m64nNk16 (f32): row = 16 * warp + groupID +
  // 8 * ((i / 2) % 2), col = 8 * (i / 4) + 2 * threadID_in_group + i % 2.
  for (int64_t n : {8, 64, 256}) {
    expectTable(getWgmmaAccumulator(n), 128, n / 2,
                [](int64_t thread, int64_t i) {
                  int64_t warp = thread / 32, lane = thread % 32;
                  int64_t row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
                  int64_t col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                  return std::make_pair(row, col);
                });
  }
  // A from registers (wgmma.m64nNk16, f16/bf16): each warp holds 16 rows as
  // mma.m16n8k16's A does: row = 16 * warp + groupID + 8 * ((i / 2) % 2),
  // col = 8 * (i / 4) + 2 * threadID_in_group + i % 2, for a0..a7.
  expectTable(getWgmmaOperandA(), 128, 8, [](int64_t thread, int64_t i) {
    int64_t warp = thread / 32, lane = thread % 32;
    int64_t row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
    int64_t col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
    return std::make_pair(row, col);
  });
}

TEST(FragmentLayoutsTest, TiledAccumulatorCoversTheBlock) {
  // A 128x128 accumulator over 4 warps in a 2x2 grid, 4x8 m16n8 tiles each.
  MmaAtom atom = *getMmaSyncAtom(16);
  Layout c = tileAtom(atom.c, {{2, 2}, {64, 32}, {4, 8}, {}});
  EXPECT_TRUE(c.isBijective());
  EXPECT_EQ(getThreadExtent(c), 128);
  EXPECT_EQ(getSlotExtent(c), 4 * 8 * 4);
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t col = 0; col < 128; ++col) {
      SmallVector<int64_t> out = c.apply({r, col, 0});
      int64_t warp = out[kThreadAxis] / 32, lane = out[kThreadAxis] % 32;
      // Warp (wr, wc) = (warp / 2, warp % 2) owns a 64x64 quadrant; inside,
      // the m16n8 tile (mi, ni) = slot / 4 in row-major order.
      EXPECT_EQ(warp / 2, r / 64);
      EXPECT_EQ(warp % 2, col / 64);
      int64_t tile = out[kSlotAxis] / 4;
      EXPECT_EQ(tile / 8, (r % 64) / 16);
      EXPECT_EQ(tile % 8, (col % 64) / 8);
      SmallVector<int64_t> inAtom = atom.c.apply({r % 16, col % 8, 0});
      EXPECT_EQ(lane, inAtom[kThreadAxis]);
      EXPECT_EQ(out[kSlotAxis] % 4, inAtom[kSlotAxis]);
    }
  // The A operand (128 x 32) is shared by the two warps of a warp row.
  Layout a = tileAtom(atom.a, {{2, 1}, {64, 0}, {4, 2}, {{2, kThreadAxis, 32}}});
  EXPECT_TRUE(a.isInjective());
  EXPECT_EQ(a.apply({70, 5, 0})[kThreadAxis] + 32,
            a.apply({70, 5, 1})[kThreadAxis]);
}

TEST(FragmentLayoutsTest, VectorizedFragment) {
  // 128 x 32 f16 over 128 threads: 8-element (128-bit) runs, 4 threads per
  // row, 32 rows per pass, 4 passes.
  Layout l = getVectorizedFragment({128, 32}, 16, 128);
  EXPECT_TRUE(l.isBijective());
  EXPECT_EQ(getThreadExtent(l), 128);
  EXPECT_EQ(getSlotExtent(l), 32);
  for (int64_t r = 0; r < 128; ++r)
    for (int64_t c = 0; c < 32; ++c) {
      SmallVector<int64_t> out = l.apply({r, c, 0});
      EXPECT_EQ(out[kSlotAxis] % 8, c % 8) << "runs of 8 are slots 0..7";
      EXPECT_EQ(out[kThreadAxis], (r % 32) * 4 + c / 8);
    }
  // Fewer elements than threads: the rest of the threads own nothing.
  Layout small = getVectorizedFragment({8}, 32, 128);
  EXPECT_TRUE(small.isInjective());
  EXPECT_EQ(getThreadExtent(small), 2);
  // Shapes that are not powers of two still get a valid layout: every one of
  // the 6 x 10 elements has exactly one owner and the owners fill a dense
  // thread x slot box. Runs are 2 elements (the widest vector dividing 10);
  // dims go to threads whole (by gcd), and of the thread counts up to 128
  // the one using the most threads is taken: 120 gives each of the 5 runs
  // of a row and each of the 6 rows a thread (128 itself would give 2). So
  // 30 threads of 2 slots each, thread = 5 * row + run.
  Layout odd = getVectorizedFragment({6, 10}, 32, 128);
  EXPECT_TRUE(odd.isBijective());
  EXPECT_EQ(getThreadExtent(odd), 30);
  EXPECT_EQ(getSlotExtent(odd), 2);
  std::set<std::pair<int64_t, int64_t>> owners;
  for (int64_t r = 0; r < 6; ++r)
    for (int64_t c = 0; c < 10; ++c) {
      SmallVector<int64_t> out = odd.apply({r, c, 0});
      owners.insert({out[kThreadAxis], out[kSlotAxis]});
      EXPECT_EQ(out[kThreadAxis], 5 * r + c / 2) << "row " << r;
      EXPECT_EQ(out[kSlotAxis] % 2, c % 2) << "runs of 2 are slots 0..1";
    }
  EXPECT_EQ(owners.size(), 60u);
}

TEST(FragmentLayoutsTest, ProjectionReplicatesOverReducedThreads) {
  Layout c = getMmaSyncAtom(16)->c;
  Layout rows = projectFragment(c, 1);
  EXPECT_EQ(rows.getInShape(), (SmallVector<int64_t>{16, 4}));
  EXPECT_TRUE(rows.isInjective());
  EXPECT_EQ(getSlotExtent(rows), 2);
  // Every thread that held part of row r holds the reduced value of row r.
  for (int64_t r = 0; r < 16; ++r) {
    std::set<int64_t> holders, reducers;
    for (int64_t copy = 0; copy < 4; ++copy)
      holders.insert(rows.apply({r, copy})[kThreadAxis]);
    for (int64_t col = 0; col < 8; ++col)
      reducers.insert(c.apply({r, col, 0})[kThreadAxis]);
    EXPECT_EQ(holders, reducers) << "row " << r;
  }
}

TEST(FragmentLayoutsTest, InsertedSlotDimsStayOnTheThread) {
  // A 64-element row over 32 threads (2 each), with an outer dim of 3
  // inserted before it as slot digits: element (k, j) is on j's thread, in
  // slot j's slot + 2 k.
  Layout row = getVectorizedFragment({64}, 32, 32);
  Layout l = insertSlotDims(row, {0}, {3, 64});
  EXPECT_TRUE(l.isBijective());
  EXPECT_EQ(getThreadExtent(l), getThreadExtent(row));
  EXPECT_EQ(getSlotExtent(l), 3 * getSlotExtent(row));
  for (int64_t k = 0; k < 3; ++k)
    for (int64_t j = 0; j < 64; ++j) {
      SmallVector<int64_t> in = row.apply({j, 0}), out = l.apply({k, j, 0});
      EXPECT_EQ(out[kThreadAxis], in[kThreadAxis]);
      EXPECT_EQ(out[kSlotAxis], in[kSlotAxis] + k * getSlotExtent(row));
    }
}

TEST(FragmentLayoutsTest, FragmentTable) {
  std::string s;
  llvm::raw_string_ostream os(s);
  printFragmentTable(getMmaSyncAtom(16)->c, os);
  // Row 0 of the mma accumulator: lanes 0..3, two registers each; cells
  // are padded to the widest ("T31:3").
  EXPECT_EQ(s.substr(0, s.find('\n')),
            "T0:0  T0:1  T1:0  T1:1  T2:0  T2:1  T3:0  T3:1");
  EXPECT_EQ(std::count(s.begin(), s.end(), '\n'), 16);
}

} // namespace
