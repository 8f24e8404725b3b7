//===- TestLayoutTables.cpp - print layouts as tables ---------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// test-tile-layout-tables prints, for every buffer and loop with a layout,
// its layout as a table: (thread:slot) cells for fragments and loops,
// offsets for shared buffers. Used by tests and to draw docs/layouts.md.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Layout/FragmentLayouts.h"

#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::tile;

namespace {
struct TestLayoutTablesPass
    : public PassWrapper<TestLayoutTablesPass, OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLayoutTablesPass)

  StringRef getArgument() const final { return "test-tile-layout-tables"; }
  StringRef getDescription() const final {
    return "Print the layout of every buffer and loop as a table";
  }

  void runOnOperation() override {
    raw_ostream &os = llvm::outs();
    getOperation()->walk([&](Operation *op) {
      LayoutAttrInterface attr;
      ArrayRef<int64_t> shape;
      Type element;
      if (auto alloc = dyn_cast<AllocSharedOp>(op)) {
        attr = alloc.getLayoutAttr();
        shape = alloc.getType().getShape();
        element = alloc.getType().getElementType();
      } else if (auto fragment = dyn_cast<FragmentOp>(op)) {
        attr = fragment.getLayoutAttr();
        shape = fragment.getType().getShape();
        element = fragment.getType().getElementType();
      } else if (auto loop = dyn_cast<ParallelOp>(op)) {
        attr = loop.getLayoutAttr();
        shape = loop.getShape();
        element = IndexType::get(op->getContext());
      }
      if (!attr)
        return;
      FailureOr<Layout> layout =
          attr.getLayout(shape, element, [&] { return op->emitError(); });
      if (failed(layout))
        return signalPassFailure();
      os << op->getName() << " " << attr << ":\n";
      if (attr.isFragmentLayout())
        printFragmentTable(*layout, os);
      else
        printOffsetTable(*layout, os);
    });
  }
};
} // namespace

namespace mlir::tile::test {
void registerTestLayoutTablesPass() {
  PassRegistration<TestLayoutTablesPass>();
}
} // namespace mlir::tile::test
