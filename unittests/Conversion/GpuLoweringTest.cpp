//===- GpuLoweringTest.cpp - The tile ops' GPU lowering models ------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// populateTileToGPUPatterns lowers each tile op through the model attached
// to it (registerGpuLoweringModels). An embedder that applies the patterns
// without the models gets a diagnostic at the kernel, not a kernel whose
// every op "cannot be lowered".
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"
#include "tile/InitTile.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

constexpr const char *kKernel = R"mlir(
module attributes {tile.target = #tile.target<"sm_80">} {
  func.func @fill(%X: memref<32x2xf32>) {
    tile.kernel grid(%bx) in (1) threads(32) {
      %f = tile.fragment layout(#tile.fragment<[[32:t1], [2:s1]]>) : !tile.fragment<32x2xf32>
      %c = arith.constant 1.0 : f32
      tile.fill %f, %c : !tile.fragment<32x2xf32>
      tile.copy %f -> %X[0, 0] : !tile.fragment<32x2xf32>, memref<32x2xf32>
    }
    return
  }
}
)mlir";

/// Lowers kKernel with populateTileToGPUPatterns in a context with every
/// dialect tile uses (and the models when `withModels`); returns the
/// diagnostics and whether a gpu.launch was made.
std::pair<std::string, bool> lower(bool withModels) {
  DialectRegistry registry;
  registerTileDialects(registry);
  if (withModels)
    registerGpuLoweringModels(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::string messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    messages += diagnostic.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kKernel, &context);
  EXPECT_TRUE(module);
  if (!module)
    return {messages, false};
  RewritePatternSet patterns(&context);
  populateTileToGPUPatterns(patterns);
  walkAndApplyPatterns(*module, std::move(patterns));
  bool launched = false;
  module->walk([&](gpu::LaunchOp) { launched = true; });
  return {messages, launched};
}

TEST(GpuLoweringTest, WithoutModelsTheKernelSaysSo) {
  auto [messages, launched] = lower(/*withModels=*/false);
  EXPECT_FALSE(launched);
  EXPECT_NE(messages.find("the tile ops' GPU lowering models are not "
                          "registered"),
            std::string::npos)
      << messages;
}

TEST(GpuLoweringTest, WithModelsTheKernelLowers) {
  auto [messages, launched] = lower(/*withModels=*/true);
  EXPECT_TRUE(launched) << messages;
  EXPECT_EQ(messages, "");
}

} // namespace
