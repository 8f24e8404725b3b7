//===- FragmentSpreadTest.cpp - fragments over any thread count -----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// getVectorizedFragment must spread a tile over as many of a kernel's
// threads as its shape allows whatever the thread count (33 threads must
// not leave a tile on one thread), and getRegistersPerThread must count
// what a thread holds.
//
//===----------------------------------------------------------------------===//

#include "tile/Layout/FragmentLayouts.h"

#include "gtest/gtest.h"

#include <set>

using namespace mlir;
using namespace mlir::tile;

namespace {

/// The distinct threads that hold some element of `fragment`.
int64_t countHolders(const Layout &fragment) {
  std::set<int64_t> threads;
  forEachFragmentIndex(fragment, [&](ArrayRef<int64_t> index) {
    std::set<int64_t> owners = getOwners(fragment, index);
    threads.insert(owners.begin(), owners.end());
  });
  return threads.size();
}

int64_t largestPowerOfTwoAtMost(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n)
    p *= 2;
  return p;
}

TEST(FragmentSpreadTest, ThirtyThreeThreadsUseThirtyTwo) {
  Layout l = getVectorizedFragment({32, 128}, 32, 33);
  EXPECT_TRUE(l.isBijective());
  EXPECT_EQ(countHolders(l), 32);
  EXPECT_LE(getThreadExtent(l), 33);
  EXPECT_EQ(getSlotExtent(l), 128);
}

TEST(FragmentSpreadTest, EveryThreadCountSpreadsAPowerOfTwoTile) {
  // 32 x 128 f32 is 1024 runs of 4: any count of threads T can take at
  // least the largest power of two not above T of them.
  for (int64_t threads = 1; threads <= 1024; ++threads) {
    Layout l = getVectorizedFragment({32, 128}, 32, threads);
    ASSERT_TRUE(l.isBijective()) << threads << " threads";
    ASSERT_LE(getThreadExtent(l), threads) << threads << " threads";
    int64_t holders = countHolders(l);
    ASSERT_GE(holders, largestPowerOfTwoAtMost(threads))
        << threads << " threads";
    ASSERT_EQ(holders * getSlotExtent(l), 32 * 128) << threads << " threads";
  }
}

TEST(FragmentSpreadTest, OddShapesUseTheirFactors) {
  // 12 x 20 f32 is 12 x 5 runs of 4: 60 runs, one per thread, with 64
  // threads (no power of two takes more than 4 of them).
  Layout l = getVectorizedFragment({12, 20}, 32, 64);
  EXPECT_TRUE(l.isBijective());
  EXPECT_EQ(countHolders(l), 60);
  EXPECT_EQ(getSlotExtent(l), 4);
  // A prime number of runs goes to that many threads when there are enough.
  Layout prime = getVectorizedFragment({7, 4}, 32, 128);
  EXPECT_EQ(countHolders(prime), 7);
  // Shapes and counts that share nothing but 1 still give a valid layout.
  for (int64_t threads : {1, 2, 3, 5, 97, 1023}) {
    Layout odd = getVectorizedFragment({9, 11}, 16, threads);
    EXPECT_TRUE(odd.isBijective()) << threads << " threads";
    EXPECT_LE(getThreadExtent(odd), threads);
  }
}

TEST(FragmentSpreadTest, RegistersPerThread) {
  Layout l = getVectorizedFragment({32, 128}, 32, 32); // 128 slots
  ASSERT_EQ(getSlotExtent(l), 128);
  EXPECT_EQ(getRegistersPerThread(l, 32), 128);
  EXPECT_EQ(getRegistersPerThread(l, 64), 256);
  // Two 16-bit elements share a register; narrower ones take half of one.
  EXPECT_EQ(getRegistersPerThread(l, 16), 64);
  EXPECT_EQ(getRegistersPerThread(l, 8), 64);
  EXPECT_EQ(getRegistersPerThread(l, 1), 64);
  // An odd count of 16-bit slots rounds up.
  Layout three = makeFragment({{LayoutFactor{3, kSlotAxis, 1}}});
  EXPECT_EQ(getRegistersPerThread(three, 16), 2);
}

} // namespace
