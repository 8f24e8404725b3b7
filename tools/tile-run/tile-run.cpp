//===- tile-run.cpp - Run tile programs -----------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-run FILE.mlir --arg SPEC... [--check IDX=ref.npy] [--bench=N]
//
// Lowers a tile program for a target (CUDA when a GPU is found, else the
// CPU), compiles it with the tile JIT library (memoized in memory and on
// disk), runs the entry function on the given or generated inputs, then
// checks, saves, summarizes and times the results.
//
// Exit status: 0 on success, 1 when a check fails or compiling or running
// fails, 2 on a usage or input error.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include "tile/InitTile.h"
#include "tile/JIT/Compiler.h"
#include "tile/JIT/Device.h"
#include "tile/JIT/HostMachine.h"
#include "tile/JIT/Kernel.h"
#include "tile/JIT/Toolchain.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <deque>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::run;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory category("tile-run options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                               cl::cat(category));
cl::opt<std::string> entryName("e", cl::desc("Function to run (default: the "
                                             "only public function)"),
                               cl::value_desc("name"), cl::cat(category));
cl::opt<std::string> targetName("target",
                                cl::desc("auto, cuda, rocm or cpu (auto: "
                                         "cuda when a GPU is found)"),
                                cl::init("auto"), cl::cat(category));
cl::opt<std::string> chipName("chip",
                              cl::desc("GPU chip (default: the detected one)"),
                              cl::cat(category));
cl::opt<unsigned> deviceOrdinal(
    "device",
    cl::desc("The GPU to run on, by ordinal (default 0; --list-devices "
             "numbers them)"),
    cl::init(0), cl::cat(category));
// The GPU lowering's policies (GpuCodegenOptions), where the chip has what
// each needs.
cl::opt<bool> warpSpecialize(
    "warp-specialize",
    cl::desc("TMA pipelines' copies in a producer warpgroup (default true)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> tmaStore(
    "tma-store",
    cl::desc("Persistent kernels' stores as TMA stores (default true)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> tmaMulticast(
    "tma-multicast",
    cl::desc("Cluster pairs share tiles by TMA multicast (default false)"),
    cl::init(false), cl::cat(category));
cl::opt<bool> deepenPipelines(
    "deepen-pipelines",
    cl::desc("Pipelines written with fewer than 4 stages get more where "
             "that costs no occupancy, GEMM loops' narrow K steps merge "
             "(default true)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> rasterBlocks(
    "raster-blocks",
    cl::desc("GEMM-shaped kernels launch their blocks in panels that share "
             "tiles in L2 (default true)"),
    cl::init(true), cl::cat(category));
cl::opt<bool> mergeBlocks(
    "merge-blocks",
    cl::desc("Neighbouring blocks of GEMM kernels merge into blocks of "
             "256-wide tiles (default true)"),
    cl::init(true), cl::cat(category));
cl::list<std::string>
    argSpecs("arg",
             cl::desc("One per parameter: TYPE[:SHAPE]=INIT with INIT one of "
                      "randn(seed=N), rand(seed=N), zeros, ones, arange, "
                      "full(V), @file.npy; or @file.npy; or TYPE=VALUE for "
                      "scalars"),
             cl::value_desc("spec"), cl::cat(category));
cl::list<std::string> outSpecs("out",
                               cl::desc("Save argument IDX after the run"),
                               cl::value_desc("IDX=file.npy"),
                               cl::cat(category));
cl::list<std::string>
    checkSpecs("check",
               cl::desc("Compare argument IDX with a reference; exit 1 on "
                        "mismatch"),
               cl::value_desc("IDX=ref.npy"), cl::cat(category));
cl::opt<double> relTolerance("rtol", cl::desc("Relative tolerance of --check"),
                     cl::init(1e-3), cl::cat(category));
cl::opt<double> absTolerance("atol", cl::desc("Absolute tolerance of --check"),
                     cl::init(1e-3), cl::cat(category));
cl::opt<unsigned> launchOverheadRuns(
    "launch-overhead",
    cl::desc("Measure the host time of N back-to-back calls (no "
             "synchronization between them) and print it per call"),
    cl::value_desc("N"), cl::init(0), cl::cat(category));
cl::opt<unsigned> benchRuns("bench",
                            cl::desc("Time N runs after warm-up and print "
                                     "median/min/max"),
                            cl::init(0), cl::cat(category));
cl::opt<double> flopsPerRun("flops",
                            cl::desc("Work of one run in FLOP (for --bench)"),
                            cl::init(0), cl::cat(category));
cl::opt<double> bytesPerRun("bytes",
                            cl::desc("Bytes one run moves (for --bench)"),
                            cl::init(0), cl::cat(category));
cl::opt<bool> timing("timing", cl::desc("Print the time of each stage"),
                     cl::cat(category));
cl::opt<unsigned> optLevel("O", cl::desc("Host LLVM optimization level (-O0 to -O3)"),
                           cl::Prefix,
                           cl::init(3), cl::cat(category));
cl::opt<std::string> cpuName(
    "cpu",
    cl::desc("CPU the host code is compiled for: host (default, or "
             "$TILE_CPU) or an LLVM CPU name such as x86-64"),
    cl::cat(category));
cl::opt<unsigned> cpuThreads(
    "cpu-threads",
    cl::desc("Threads a CPU kernel runs its blocks on (default "
             "$TILE_CPU_THREADS, else the cores available)"),
    cl::init(0), cl::cat(category));
cl::opt<bool> noCache("no-cache", cl::desc("Do not use the disk cache"),
                      cl::cat(category));
cl::opt<std::string> cacheDir("cache-dir",
                              cl::desc("Disk cache directory (default "
                                       "$TILE_CACHE_DIR or ~/.cache/tile)"),
                              cl::cat(category));
cl::opt<bool> cacheInfo("cache-info",
                        cl::desc("Print the cache directory, its contents "
                                 "and this run's cache result"),
                        cl::cat(category));
cl::opt<bool> compileOnly(
    "compile-only",
    cl::desc("Compile (and cache) for the target, then stop: no device is "
             "needed with --target and --chip, and no --arg"),
    cl::cat(category));
cl::opt<bool> listDevices("list-devices",
                          cl::desc("Print the GPUs tile-run can use (exit 1 "
                                   "when there are none)"),
                          cl::cat(category));
cl::opt<bool> cacheClear("cache-clear",
                         cl::desc("Empty the disk cache (then run, if a file "
                                  "is given)"),
                         cl::cat(category));

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

int usageError(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tile-run") << message << "\n";
  return kExitUsage;
}

int fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tile-run") << message << "\n";
  return kExitFailure;
}

/// Parses "IDX=path".
FailureOr<std::pair<unsigned, std::string>> parseIndexed(StringRef text,
                                                          unsigned numArgs,
                                                          std::string &error) {
  auto [index, path] = text.split('=');
  unsigned i;
  if (index.getAsInteger(10, i) || path.empty()) {
    error = "expected IDX=file.npy, got '" + text.str() + "'";
    return mlir::failure();
  }
  if (i >= numArgs) {
    error = "argument index " + std::to_string(i) + " is out of range: @" +
            entryName + " has " + std::to_string(numArgs) + " arguments";
    return mlir::failure();
  }
  return std::make_pair(i, path.str());
}

struct Argument {
  HostArray host;
  bool isMemRef = false;
  void *device = nullptr;
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  // The command-line parser reads `@name` tokens as response files; keep
  // `--arg @a.npy` an argument by joining it into `--arg=@a.npy`.
  std::vector<std::string> joined;
  for (int i = 0; i < argc; ++i) {
    StringRef token = argv[i];
    if ((token == "--arg" || token == "-arg") && i + 1 < argc &&
        StringRef(argv[i + 1]).starts_with("@"))
      joined.push_back((token + "=" + argv[++i]).str());
    else
      joined.push_back(token.str());
  }
  std::vector<const char *> args;
  for (const std::string &token : joined)
    args.push_back(token.c_str());
  cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) {
        // Options given before --version apply to what it prints.
        if (cpuThreads)
          jit::setCpuThreadCount(cpuThreads);
        jit::printToolchain(os, cpuName);
      });
  if (!cl::ParseCommandLineOptions(args.size(), args.data(),
                                   "tile-run: run tile programs\n",
                                   &llvm::errs()))
    return kExitUsage;

  if (listDevices) {
    std::string why;
    std::unique_ptr<jit::Device> gpu =
        jit::createGpuDevice(jit::Target::NVIDIA, chipName, &why);
    if (!gpu) {
      llvm::outs() << "cuda: none (" << why << ")\n";
      return kExitFailure;
    }
    // One line per GPU, numbered as --device takes them.
    int count = jit::getGpuDeviceCount(jit::Target::NVIDIA);
    for (int ordinal = 0; ordinal < count; ++ordinal) {
      std::unique_ptr<jit::Device> other =
          ordinal == 0 ? std::move(gpu)
                       : jit::createGpuDevice(jit::Target::NVIDIA, chipName,
                                              &why, ordinal);
      llvm::outs() << "cuda:" << ordinal << ": "
                   << (other ? other->getDescription()
                             : "unusable (" + why + ")")
                   << "\n";
    }
    return 0;
  }

  jit::CompileOptions options;
  options.optLevel = optLevel;
  options.cpu = cpuName;
  if (cpuThreads)
    jit::setCpuThreadCount(cpuThreads);
  if (optLevel > 3)
    return usageError("-O must be 0 to 3");
  if (!noCache)
    options.cacheDir =
        cacheDir.empty() ? jit::DiskCache::getDefaultDirectory() : cacheDir;
  if (cacheClear) {
    jit::DiskCache cache(cacheDir.empty()
                             ? jit::DiskCache::getDefaultDirectory()
                             : std::string(cacheDir));
    llvm::outs() << "tile-run: removed " << cache.clear()
                 << " cache entries from " << cache.getDirectory() << "\n";
    if (inputFile.empty())
      return 0;
  }
  if (inputFile.empty())
    return usageError("no input file (see --help)");

  // Target.
  if (targetName != "auto" && !jit::parseTarget(targetName))
    return usageError("unknown target '" + targetName +
                      "' (expected auto, cuda, rocm or cpu)");
  if (targetName == "cpu" && deviceOrdinal != 0)
    return usageError("--device numbers GPUs; the target is cpu");
  std::string error;
  FailureOr<std::unique_ptr<jit::Device>> selected = jit::selectDevice(
      targetName, chipName, compileOnly, error, deviceOrdinal);
  if (failed(selected))
    return fail(error);
  jit::Device *device = selected->get();
  options.target = device->getTarget();
  options.chip = device->getChip();
  options.codegen.warpSpecialize = warpSpecialize;
  options.codegen.tmaStore = tmaStore;
  options.codegen.tmaMulticast = tmaMulticast;
  options.codegen.deepenPipelines = deepenPipelines;
  options.codegen.rasterBlocks = rasterBlocks;
  options.codegen.mergeBlocks = mergeBlocks;

  // Parse.
  auto start = std::chrono::steady_clock::now();
  DialectRegistry registry;
  registerTileDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics point at the user's source; the IR of a failing pass stage
  // is not for users.
  context.printOpOnDiagnostic(false);
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &error);
  if (!file)
    return usageError(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return kExitUsage;
  double parseSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  // Entry function.
  func::FuncOp entry;
  if (!entryName.empty()) {
    entry = module->lookupSymbol<func::FuncOp>(entryName);
    if (!entry || entry.isExternal())
      return usageError("no function @" + entryName + " in " + inputFile);
  } else {
    SmallVector<func::FuncOp> candidates;
    for (auto f : module->getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal())
        candidates.push_back(f);
    if (candidates.size() != 1) {
      std::string names;
      for (func::FuncOp f : candidates)
        names += " @" + f.getSymName().str();
      return usageError("choose the function to run with -e (candidates:" +
                        (names.empty() ? std::string(" none") : names) + ")");
    }
    entry = candidates.front();
    entryName = entry.getSymName().str();
  }
  FunctionType functionType = entry.getFunctionType();
  if (functionType.getNumResults() != 0)
    return usageError("@" + entryName +
                      " returns values; tile-run runs functions that write "
                      "their results into memref arguments");
  unsigned numArgs = functionType.getNumInputs();
  if (compileOnly) {
    options.initialize = false;
    jit::Compiler compiler(options, device->getRuntimeSymbols());
    jit::CompileReport report;
    if (failed(compiler.compile(*module, &report)))
      return fail("compiling @" + entryName + " for " +
                  jit::stringifyTarget(options.target) + " failed");
    llvm::outs() << "tile-run: compiled @" << entryName << " for "
                 << device->getDescription() << " ("
                 << jit::stringifyCacheResult(report.cache) << ")\n";
    if (timing)
      for (auto &[stage, secs] : report.stages)
        llvm::outs() << llvm::formatv("  time: {0} {1:f1} ms\n", stage,
                                      secs * 1e3);
    return 0;
  }
  if (argSpecs.size() != numArgs)
    return usageError("@" + entryName + " takes " + Twine(numArgs) +
                      " arguments, got " + Twine(argSpecs.size()) +
                      " --arg options");

  // Arguments, checked against the signature as the run will pass them.
  FailureOr<jit::Signature> signatureOrError =
      jit::Signature::get(entry, error);
  if (failed(signatureOrError))
    return usageError(error);
  const jit::Signature &callSignature = *signatureOrError;
  jit::PackedArguments packed(callSignature);
  std::vector<Argument> arguments(numArgs);
  for (unsigned i = 0; i < numArgs; ++i) {
    const jit::Parameter &parameter = callSignature.parameters[i];
    std::string where = callSignature.describeArgument(i);
    FailureOr<ArgSpec> spec = parseArgSpec(argSpecs[i], error);
    if (failed(spec))
      return usageError(where + error);
    FailureOr<HostArray> array = materialize(*spec, error);
    if (failed(array))
      return usageError(where + error);
    if (parameter.isMemRef() && !parameter.rowMajor)
      return usageError(where + "tile-run passes dense row-major buffers");
    if (parameter.isMemRef() && !spec->isScalar) {
      if (failed(packed.setMemRef(i, array->data.data(), array->type,
                                  array->shape, {}, &error)))
        return usageError(error);
    } else if (!parameter.isMemRef() && !array->shape.empty() &&
               array->getNumElements() != 1) {
      return usageError(where + "expects a scalar, got an array of shape " +
                        formatShape(array->shape));
    } else if (failed(packed.setScalar(i, array->type, array->data.data(),
                                       &error))) {
      return usageError(error);
    }
    arguments[i].host = std::move(*array);
    arguments[i].isMemRef = parameter.isMemRef();
  }

  // Outputs and checks.
  SmallVector<std::pair<unsigned, std::string>> outputs, references;
  for (auto [list, specs] : {std::make_pair(&outputs, &outSpecs),
                             std::make_pair(&references, &checkSpecs)}) {
    for (const std::string &text : *specs) {
      FailureOr<std::pair<unsigned, std::string>> parsed =
          parseIndexed(text, numArgs, error);
      if (failed(parsed))
        return usageError(error);
      if (!arguments[parsed->first].isMemRef)
        return usageError("argument #" + Twine(parsed->first) +
                          " is a scalar; only memref arguments are results");
      list->push_back(*parsed);
    }
  }
  std::vector<HostArray> referenceArrays;
  for (auto &[index, path] : references) {
    FailureOr<HostArray> ref = readArray(path, error);
    if (failed(ref))
      return usageError(error);
    if (ref->shape != arguments[index].host.shape)
      return usageError(path + ": shape " + formatShape(ref->shape) +
                        " does not match argument #" + Twine(index) + "'s " +
                        formatShape(arguments[index].host.shape));
    referenceArrays.push_back(std::move(*ref));
  }

  // Compile, on the device: its code is loaded there.
  jit::Compiler compiler(options, device->getRuntimeSymbols());
  jit::CompileReport report;
  FailureOr<std::shared_ptr<jit::Executable>> executable = [&] {
    jit::DeviceScope scope(*device);
    return compiler.compile(*module, &report);
  }();
  if (failed(executable))
    return fail("compiling @" + entryName + " for " +
                   jit::stringifyTarget(options.target) + " failed");
  if (!report.cacheNote.empty())
    llvm::WithColor::warning(llvm::errs(), "tile-run")
        << report.cacheNote << "\n";
  // With --timing, a second compile of the same module measures the
  // in-process (memory cache) hit: key computation and lookup.
  double memoryHitSeconds = -1;
  if (timing) {
    auto start = std::chrono::steady_clock::now();
    jit::CompileReport again;
    if (failed(compiler.compile(*module, &again)))
      return fail("recompiling @" + entryName + " failed");
    memoryHitSeconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  }
  FailureOr<jit::Kernel> kernel =
      jit::Kernel::get(*executable, entryName, *device, &error);
  if (failed(kernel))
    return fail(error);

  // Run. Device buffers are freed on every way out (scripts/sanitize.sh
  // found them leaked on errors).
  llvm::scope_exit freeBuffers([&] {
    for (Argument &arg : arguments)
      if (arg.device)
        device->free(arg.device);
  });
  for (auto [i, arg] : llvm::enumerate(arguments)) {
    if (!arg.isMemRef)
      continue;
    arg.device = device->allocate(arg.host.data.size());
    if (!arg.device)
      return fail("cannot allocate " + Twine(arg.host.data.size()) +
                  " bytes on " + device->getDescription());
    if (failed(device->copyToDevice(arg.device, arg.host.data.data(),
                                    arg.host.data.size())))
      return fail(device->getLastError());
    // Checked above with the host copy.
    (void)packed.setMemRef(i, arg.device, arg.host.type, arg.host.shape, {},
                           nullptr);
  }
  auto runStart = std::chrono::steady_clock::now();
  if (failed(kernel->call(packed, &error)))
    return fail("running @" + entryName + " failed: " + error);
  double runSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - runStart)
                          .count();
  for (Argument &arg : arguments)
    if (arg.isMemRef &&
        failed(device->copyToHost(arg.host.data.data(), arg.device,
                                  arg.host.data.size())))
      return fail(device->getLastError());

  llvm::outs() << "tile-run: @" << entryName << " on "
               << device->getDescription() << " ("
               << jit::stringifyCacheResult(report.cache) << ")\n";

  // Results.
  SmallVector<unsigned> shown;
  for (auto &list : {outputs, references})
    for (auto &[index, path] : list)
      if (!llvm::is_contained(shown, index))
        shown.push_back(index);
  if (shown.empty())
    for (unsigned i = 0; i < numArgs; ++i)
      if (arguments[i].isMemRef)
        shown.push_back(i);
  llvm::sort(shown);
  for (unsigned i : shown) {
    const HostArray &array = arguments[i].host;
    llvm::outs() << "  arg #" << i << " "
                 << jit::stringifyElementType(array.type) << " "
                 << formatShape(array.shape) << ": " << summarize(array)
                 << "\n";
  }
  for (auto &[index, path] : outputs)
    if (failed(writeArray(path, arguments[index].host, error)))
      return usageError(error);
  bool allPassed = true;
  for (auto [reference, expected] : llvm::zip(references, referenceArrays)) {
    auto &[index, path] = reference;
    const HostArray &got = arguments[index].host;
    CheckResult check = compareArrays(got, expected, relTolerance, absTolerance);
    if (check.passed) {
      llvm::outs() << "  check arg #" << index << " against " << path
                   << ": ok (rtol " << relTolerance << ", atol " << absTolerance
                   << ")\n";
      continue;
    }
    allPassed = false;
    llvm::outs() << "  check arg #" << index << " against " << path
                 << ": MISMATCH in " << check.mismatches << " of "
                 << got.getNumElements() << " elements; worst at "
                 << got.formatIndex(check.worst) << ": got "
                 << check.worstGot << ", expected " << check.worstExpected
                 << " (rtol " << relTolerance << ", atol " << absTolerance
                 << ")\n";
  }

  // Benchmark.
  if (benchRuns > 0) {
    FailureOr<jit::Timing> bench =
        kernel->benchmark(packed, benchRuns, jit::kDefaultWarmup, &error);
    if (failed(bench))
      return fail("benchmarking failed: " + error);
    double mid = bench->getMedian();
    llvm::outs() << llvm::formatv(
        "  bench: {0} runs: median {1:f4} ms, min {2:f4} ms, max {3:f4} ms",
        bench->seconds.size(), mid * 1e3, bench->getMin() * 1e3,
        bench->getMax() * 1e3);
    if (flopsPerRun > 0) {
      double rate = flopsPerRun / mid;
      if (rate >= 1e12)
        llvm::outs() << llvm::formatv(", {0:f1} TFLOP/s", rate / 1e12);
      else
        llvm::outs() << llvm::formatv(", {0:f2} GFLOP/s", rate / 1e9);
    }
    if (bytesPerRun > 0)
      llvm::outs() << llvm::formatv(", {0:f2} GB/s", bytesPerRun / mid / 1e9);
    llvm::outs() << "\n";
  }
  if (launchOverheadRuns > 0) {
    FailureOr<double> seconds = kernel->measureLaunchOverhead(
        packed, launchOverheadRuns, jit::kDefaultWarmup, &error);
    if (failed(seconds))
      return fail("measuring the launch overhead failed: " + error);
    llvm::outs() << llvm::formatv(
        "  launch: {0:f2} us of host time per call ({1} calls)\n",
        *seconds * 1e6, launchOverheadRuns.getValue());
  }

  if (timing) {
    llvm::outs() << llvm::formatv("  time: parse {0:f1} ms\n",
                                  parseSeconds * 1e3);
    for (auto &[stage, secs] : report.stages)
      llvm::outs() << llvm::formatv("  time: {0} {1:f1} ms\n", stage,
                                    secs * 1e3);
    llvm::outs() << llvm::formatv("  time: first run {0:f3} ms\n",
                                  runSeconds * 1e3);
    llvm::outs() << llvm::formatv("  time: in-process cache hit {0:f3} ms\n",
                                  memoryHitSeconds * 1e3);
  }
  if (cacheInfo) {
    llvm::outs() << "  cache: key " << report.key << ", "
                 << jit::stringifyCacheResult(report.cache) << "\n";
    if (jit::DiskCache *cache = compiler.getDiskCache()) {
      jit::DiskCache::Info info = cache->getInfo();
      std::string note;
      jit::DiskCache::getDefaultSizeLimit(&note);
      llvm::outs() << "  cache: " << cache->getDirectory() << ": "
                   << info.entries << " entries, " << info.bytes
                   << " bytes (limit " << info.limit << ")\n";
      if (!note.empty())
        llvm::outs() << "  cache: " << note << "\n";
    } else {
      llvm::outs() << "  cache: disk cache off\n";
    }
  }
  return allPassed ? 0 : kExitFailure;
}
