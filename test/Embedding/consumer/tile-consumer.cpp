// tile-consumer: lowers a tile program for the CPU and prints it, or, with
// --run, compiles @gemm with tile's JIT and checks its result.
//
//   tile-consumer gemm.mlir          the tile-to-cpu pipeline's output
//   tile-consumer --run gemm.mlir    C = A x B on the CPU, sampled and checked

#include "tile/InitTile.h"
#include "tile/JIT/Kernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <vector>

using namespace mlir;

static int run(ModuleOp module) {
  std::string error;
  auto device = tile::jit::selectDevice("cpu", "", false, error);
  tile::jit::Compiler compiler((*device)->getCompileOptions(),
                               (*device)->getRuntimeSymbols());
  auto executable = compiler.compile(module);
  if (failed(executable))
    return 1;
  auto gemm = tile::jit::Kernel::get(*executable, "gemm", **device, &error);
  if (failed(gemm)) {
    llvm::errs() << error << "\n";
    return 1;
  }
  // A: 1024x512 f16, B: 512x256 f16, C: 1024x256 f32, small integers.
  const int64_t m = 1024, k = 512, n = 256;
  std::vector<uint16_t> a(m * k), b(k * n);
  std::vector<float> c(m * n);
  for (int64_t i = 0; i < m * k; ++i)
    tile::jit::storeElement(tile::jit::ElementType::F16, &a[i], i % 5 - 2);
  for (int64_t i = 0; i < k * n; ++i)
    tile::jit::storeElement(tile::jit::ElementType::F16, &b[i], i % 3 - 1);
  tile::jit::PackedArguments args = gemm->makeArguments();
  if (failed(args.setMemRef(0, a.data(), tile::jit::ElementType::F16, {m, k},
                            {}, &error)) ||
      failed(args.setMemRef(1, b.data(), tile::jit::ElementType::F16, {k, n},
                            {}, &error)) ||
      failed(args.setMemRef(2, c.data(), tile::jit::ElementType::F32, {m, n},
                            {}, &error)) ||
      failed(gemm->call(args, &error))) {
    llvm::errs() << error << "\n";
    return 1;
  }
  // Every 97th element against a dot product computed here.
  int64_t checked = 0, wrong = 0;
  for (int64_t e = 0; e < m * n; e += 97, ++checked) {
    int64_t i = e / n, j = e % n;
    double sum = 0;
    for (int64_t p = 0; p < k; ++p)
      sum += double((i * k + p) % 5 - 2) * double((p * n + j) % 3 - 1);
    wrong += std::fabs(c[e] - sum) > 1e-3;
  }
  llvm::outs() << "gemm: " << checked << " elements checked, " << wrong
               << " wrong\n";
  return wrong != 0;
}

int main(int argc, char **argv) {
  bool execute = argc == 3 && std::strcmp(argv[1], "--run") == 0;
  if (argc != 2 && !execute) {
    llvm::errs() << "usage: tile-consumer [--run] FILE.mlir\n";
    return 2;
  }
  DialectRegistry registry;
  tile::registerTileDialects(registry);
  tile::registerTilePassesAndPipelines();
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(argv[argc - 1], &context);
  if (!module)
    return 2;
  if (execute)
    return run(*module);
  PassManager pm(&context);
  if (failed(parsePassPipeline("tile-to-cpu", pm)) || failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
