//===- LayoutCodegenTest.cpp - the GPU lowering's layout arithmetic -------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The index arithmetic convert-tile-to-gpu emits for layouts (a shared
// buffer's swizzled offset, a fragment slot's index on a thread, the thread
// that holds an element, whether a thread holds a slot), built as IR on
// run-time values and evaluated by folding each op, against the layout
// library that layout inference and the CPU lowering use. The CPU execution
// tests never run this code, so this is where a wrong digit, swizzle or lane
// is caught without a GPU.
//
//===----------------------------------------------------------------------===//

#include "FoldingTest.h"

#include "../../lib/Conversion/TileToGPU/LayoutCodegen.h"

#include "tile/Dialect/Tile/IR/TileAttrs.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Layout/FragmentLayouts.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/DenseMap.h"

#include "gtest/gtest.h"

#include <map>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

namespace {

class LayoutCodegenTest : public FoldingTest {
protected:
  Layout layoutOf(Attribute attr, ArrayRef<int64_t> shape, Type element) {
    FailureOr<Layout> layout = cast<LayoutAttrInterface>(attr).getLayout(
        shape, element, [&] { return emitError(loc); });
    EXPECT_TRUE(succeeded(layout));
    return succeeded(layout) ? *layout : Layout();
  }
  Layout fragmentOf(StringRef attr, ArrayRef<int64_t> shape) {
    return layoutOf(parseAttribute(attr, &context), shape,
                    Float32Type::get(&context));
  }

  /// Checks a shared layout's offsets as KernelContext::sharedOffset builds
  /// them (layout, then swizzle) for every index of a 2-d `shape`.
  void checkSharedOffsets(const Layout &layout, ArrayRef<int64_t> shape) {
    Block *body = newFunction(2);
    Value offset = applyLayout(b, loc, layout, body->getArguments(), 0);
    if (std::optional<Swizzle> swizzle = layout.getSwizzle())
      offset = applySwizzle(b, loc, offset, *swizzle);
    for (int64_t r = 0; r < shape[0]; ++r)
      for (int64_t c = 0; c < shape[1]; ++c)
        ASSERT_EQ(evaluate(offset, {r, c}), layout.apply({r, c})[0])
            << "at (" << r << ", " << c << ") of " << layout.str();
  }

  /// Checks fragmentIndex, fragmentThread and buildOwnsSlot on every thread
  /// and slot of `fragment` (launched with twice the threads it spans)
  /// against the element -> (thread, slot) map of the layout library.
  void checkFragment(const Layout &fragment) {
    unsigned rank = getFragmentRank(fragment);
    int64_t extent = getThreadExtent(fragment);
    int64_t threads = 2 * extent;
    // (thread, slot) -> (element index, replica).
    std::map<std::pair<int64_t, int64_t>, SmallVector<int64_t>> owner;
    for (int64_t i = 0; i < fragment.getInSize(); ++i) {
      SmallVector<int64_t> point = fragment.delinearize(i);
      SmallVector<int64_t> out = fragment.apply(point);
      owner.try_emplace({out[kThreadAxis], out[kSlotAxis]}, point);
    }
    // The thread holding replica r of an element, from the element's index.
    llvm::DenseMap<int64_t, Value> holders;
    auto holderOf = [&](int64_t replica) {
      Value &holder = holders[replica];
      if (!holder) {
        OpBuilder::InsertionGuard guard(b);
        Block *body = newFunction(rank);
        holder = fragmentThread(b, loc, fragment, body->getArguments(),
                                replica);
      }
      return holder;
    };
    for (int64_t slot = 0; slot < getSlotExtent(fragment); ++slot) {
      Block *body = newFunction(1);
      Value thread = body->getArgument(0);
      bool used = isSlotUsed(fragment, slot);
      SmallVector<Value> index =
          used ? fragmentIndex(b, loc, fragment, slot, thread, extent)
               : SmallVector<Value>();
      Value owns = buildOwnsSlot(b, loc, fragment, slot,
                                 /*firstCopyOnly=*/false, thread, threads);
      Value first = buildOwnsSlot(b, loc, fragment, slot,
                                  /*firstCopyOnly=*/true, thread, threads);
      for (int64_t t = 0; t < threads; ++t) {
        auto it = owner.find({t, slot});
        bool holds = it != owner.end();
        SCOPED_TRACE("thread " + std::to_string(t) + ", slot " +
                     std::to_string(slot) + " of " + fragment.str());
        EXPECT_EQ(owns ? evaluate(owns, {t}) : 1, holds);
        EXPECT_EQ(first ? evaluate(first, {t}) : 1,
                  holds && it->second.back() == 0);
        EXPECT_FALSE(holds && !used);
        if (!holds)
          continue;
        ArrayRef<int64_t> element = ArrayRef(it->second).drop_back();
        int64_t replica = it->second.back();
        for (unsigned d = 0; d < rank; ++d)
          EXPECT_EQ(evaluate(index[d], {t}), element[d]) << "dim " << d;
        EXPECT_EQ(evaluate(holderOf(replica), element), t);
      }
    }
  }

};

TEST_F(LayoutCodegenTest, SwizzledSharedOffsets) {
  Type f16 = Float16Type::get(&context), f32 = Float32Type::get(&context),
       i8 = IntegerType::get(&context, 8);
  for (int64_t mode : {32, 64, 128})
    for (auto [element, shape] :
         {std::pair{f16, SmallVector<int64_t>{64, 64}},
          std::pair{f16, SmallVector<int64_t>{16, 128}},
          std::pair{f32, SmallVector<int64_t>{32, 32}},
          std::pair{i8, SmallVector<int64_t>{32, 128}}}) {
      Layout layout =
          layoutOf(SwizzleLayoutAttr::get(&context, mode), shape, element);
      ASSERT_TRUE(layout.getSwizzle()) << mode;
      checkSharedOffsets(layout, shape);
    }
}

TEST_F(LayoutCodegenTest, Swizzle128IsTheHardwarePattern) {
  // Independent of the layout library: TMA's and wgmma's 128-byte swizzle
  // XORs the 16-byte chunk of a 128-byte row with the row's index mod 8.
  Layout layout = layoutOf(SwizzleLayoutAttr::get(&context, 128), {32, 64},
                           Float16Type::get(&context));
  Block *body = newFunction(2);
  Value offset = applySwizzle(
      b, loc, applyLayout(b, loc, layout, body->getArguments(), 0),
      *layout.getSwizzle());
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 64; ++c) {
      int64_t chunk = (c * 2 / 16) ^ (r % 8);
      ASSERT_EQ(evaluate(offset, {r, c}) * 2, r * 128 + chunk * 16 + c * 2 % 16)
          << "at (" << r << ", " << c << ")";
    }
}

TEST_F(LayoutCodegenTest, PaddedAndLinearOffsets) {
  Type f16 = Float16Type::get(&context);
  checkSharedOffsets(layoutOf(PaddedLayoutAttr::get(&context, 8), {16, 40}, f16),
                     {16, 40});
  checkSharedOffsets(layoutOf(LinearLayoutAttr::get(&context), {7, 13}, f16),
                     {7, 13});
}

TEST_F(LayoutCodegenTest, InstructionFragments) {
  for (unsigned bits : {8u, 16u, 32u}) {
    std::optional<MmaAtom> atom = getMmaSyncAtom(bits);
    ASSERT_TRUE(atom);
    checkFragment(atom->a);
    checkFragment(atom->b);
    checkFragment(atom->c);
  }
  checkFragment(getMfma16x16x16Atom().a);
  checkFragment(getMfma16x16x16Atom().c);
  checkFragment(getWgmmaAccumulator(64));
  checkFragment(getWgmmaOperandA());
}

TEST_F(LayoutCodegenTest, ReplicatedAndHoledFragments) {
  // Two copies of every element (threads 32 apart).
  checkFragment(fragmentOf(
      "#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]], replicate [2:t32]>",
      {16, 8}));
  // Threads 0, 8, 16, 24 only.
  checkFragment(fragmentOf("#tile.fragment<[[4:t8, 8:s1]]>", {32}));
}

} // namespace
