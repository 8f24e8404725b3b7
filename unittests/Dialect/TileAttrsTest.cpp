//===- TileAttrsTest.cpp - tests of the tile layout attributes ------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileAttrs.h"
#include "tile/Dialect/Tile/IR/TileDialect.h"
#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

class TileAttrsTest : public ::testing::Test {
protected:
  TileAttrsTest() {
    context.loadDialect<TileDialect, func::FuncDialect, gpu::GPUDialect>();
  }

  /// Fails the test if the attribute does not fit the buffer.
  Layout layoutOf(Attribute attr, ArrayRef<int64_t> shape, Type element) {
    FailureOr<Layout> layout = cast<LayoutAttrInterface>(attr).getLayout(
        shape, element, [&] { return emitError(UnknownLoc::get(&context)); });
    EXPECT_TRUE(succeeded(layout));
    return succeeded(layout) ? *layout : Layout();
  }

  MLIRContext context;
  Builder b{&context};
};

TEST_F(TileAttrsTest, BufferLayoutAttrDefaultsSharedBuffersToLinear) {
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(R"mlir(
    func.func @f() {
      tile.kernel grid(%bx) in (1) threads(32) {
        %a = tile.alloc_shared : memref<8x8xf16, #gpu.address_space<workgroup>>
        %b = tile.alloc_shared layout(#tile.swizzle<128>) : memref<8x64xf16, #gpu.address_space<workgroup>>
        %f = tile.fragment : !tile.fragment<8x8xf32>
      }
      return
    }
  )mlir", &context);
  ASSERT_TRUE(module);
  SmallVector<Value> buffers;
  module->walk([&](Operation *op) {
    if (isa<AllocSharedOp, FragmentOp>(op))
      buffers.push_back(op->getResult(0));
  });
  ASSERT_EQ(buffers.size(), 3u);
  // Unannotated shared: row-major; annotated: its own; fragment without
  // one: none (inference decides).
  EXPECT_TRUE(isa<LinearLayoutAttr>(getBufferLayoutAttr(buffers[0])));
  EXPECT_EQ(getBufferLayoutAttr(buffers[1]),
            SwizzleLayoutAttr::get(&context, 128));
  EXPECT_FALSE(getBufferLayoutAttr(buffers[2]));
}

TEST_F(TileAttrsTest, Swizzle128OnAWideTileUsesPanels) {
  // 64 x 128 f16: rows are 256 bytes, so two 128-byte panels of 64 columns.
  Layout l = layoutOf(SwizzleLayoutAttr::get(&context, 128), {64, 128},
                      b.getF16Type());
  EXPECT_TRUE(l.isBijective());
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 0; c < 128; ++c) {
      int64_t panel = c / 64, inPanel = c % 64;
      int64_t chunk = (inPanel / 8) ^ (r % 8);
      EXPECT_EQ(l.apply({r, c})[0], panel * 64 * 64 + r * 64 + chunk * 8 +
                                        inPanel % 8);
    }
}

TEST_F(TileAttrsTest, Swizzle64OnF32) {
  // 32 x 16 f32: 64-byte rows; chunks of 4 floats, XOR with (row / 2) % 4
  // since two 64-byte rows share each 128-byte line.
  Layout l = layoutOf(SwizzleLayoutAttr::get(&context, 64), {32, 16},
                      b.getF32Type());
  EXPECT_TRUE(l.isBijective());
  for (int64_t r = 0; r < 32; ++r)
    for (int64_t c = 0; c < 16; ++c) {
      int64_t byte = r * 64 + c * 4;
      int64_t swizzled = byte ^ (((byte >> 7) & 3) << 4);
      EXPECT_EQ(l.apply({r, c})[0] * 4, swizzled);
    }
}

TEST_F(TileAttrsTest, PaddedRows) {
  Layout l = layoutOf(PaddedLayoutAttr::get(&context, 8), {2, 16, 32},
                      b.getF16Type());
  EXPECT_EQ(l.apply({1, 3, 5})[0], 1 * 16 * 40 + 3 * 40 + 5);
  EXPECT_TRUE(l.isInjective());
}

TEST_F(TileAttrsTest, FragmentAttrRoundTripsThroughLayout) {
  Attribute parsed = parseAttribute(
      "#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]], replicate [2:t32]>",
      &context);
  auto attr = dyn_cast_or_null<FragmentLayoutAttr>(parsed);
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getShape(), (SmallVector<int64_t>{16, 8}));
  EXPECT_EQ(attr.getNumReplicas(), 2);
  EXPECT_EQ(attr.getThreadExtent(), 64);
  EXPECT_EQ(attr.getSlotExtent(), 4);
  Layout l = attr.toLayout();
  EXPECT_EQ(FragmentLayoutAttr::get(&context, l), attr);
  // Copy 1 of element (9, 3) sits 32 threads after copy 0.
  EXPECT_EQ(l.apply({9, 3, 1}), (SmallVector<int64_t>{32 + 4 + 1, 3}));
}

TEST_F(TileAttrsTest, SharedAttrWithSwizzleMatchesParametricSwizzle) {
  Attribute general = parseAttribute(
      "#tile.shared<[[64:64], [2:4096, 64:1]], swizzle 128>", &context);
  ASSERT_TRUE(general);
  Layout explicitLayout = layoutOf(general, {64, 128}, b.getF16Type());
  Layout parametric = layoutOf(SwizzleLayoutAttr::get(&context, 128),
                               {64, 128}, b.getF16Type());
  for (int64_t i = 0; i < 64 * 128; ++i)
    EXPECT_EQ(explicitLayout.applyLinear(i), parametric.applyLinear(i));
}

/// ldmatrix (and ldmatrix.trans) reads a 8x8 matrix as 8 rows of 16 bytes,
/// one row address per lane of a quarter-warp: it is conflict-free when the
/// 8 rows land in 8 distinct 16-byte bank groups of a 128-byte bank window.
TEST_F(TileAttrsTest, SwizzlesTheInferenceChoosesAreConflictFree) {
  for (Type element : {Type(b.getF16Type()), Type(b.getI8Type()),
                       Type(b.getF32Type())}) {
    int64_t bytes = element.getIntOrFloatBitWidth() / 8;
    for (int64_t mode : {32, 64, 128}) {
      // Rows of exactly `mode` bytes, and rows of two panels.
      for (int64_t rowBytes : {mode, 2 * mode}) {
        int64_t cols = rowBytes / bytes, rows = 64;
        Layout l = layoutOf(SwizzleLayoutAttr::get(&context, mode),
                            {rows, cols}, element);
        ASSERT_TRUE(l.isBijective());
        for (int64_t r0 = 0; r0 < rows; r0 += 8)
          for (int64_t chunk = 0; chunk < rowBytes / 16; ++chunk) {
            SmallVector<bool> used(8, false);
            for (int64_t r = r0; r < r0 + 8; ++r) {
              int64_t offset = l.apply({r, chunk * 16 / bytes})[0] * bytes;
              EXPECT_EQ(offset % 16, 0) << "chunks stay 16-byte aligned";
              int64_t group = (offset / 16) % 8;
              EXPECT_FALSE(used[group])
                  << "swizzle<" << mode << "> " << rowBytes
                  << "-byte rows of " << bytes << "-byte elements: rows "
                  << r0 << ".." << r0 + 7 << " chunk " << chunk;
              used[group] = true;
            }
          }
      }
    }
  }
}

TEST_F(TileAttrsTest, UnswizzledRowsConflict) {
  // Without a swizzle, 64-byte rows put rows r and r + 2 in one bank group:
  // the check above is able to fail.
  Layout l = layoutOf(LinearLayoutAttr::get(&context), {8, 32},
                      b.getF16Type());
  SmallVector<bool> used(8, false);
  bool conflict = false;
  for (int64_t r = 0; r < 8; ++r) {
    int64_t group = (l.apply({r, 0})[0] * 2 / 16) % 8;
    conflict |= used[group];
    used[group] = true;
  }
  EXPECT_TRUE(conflict);
}

} // namespace
