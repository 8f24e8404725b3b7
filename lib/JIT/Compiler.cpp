//===- Compiler.cpp - Compile, memoize and load tile programs -------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Compiler.h"

#include "tile/Config/BuildId.h"
#include "tile/InitTile.h"
#include "tile/JIT/HostMachine.h"
#include "tile/JIT/Toolchain.h"
#include "tile/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"

#include <chrono>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::jit;

StringRef mlir::tile::jit::stringifyTarget(Target target) {
  switch (target) {
  case Target::CPU:
    return "cpu";
  case Target::NVIDIA:
    return "cuda";
  case Target::AMD:
    return "rocm";
  }
  llvm_unreachable("unknown target");
}

StringRef mlir::tile::jit::stringifyCacheResult(CacheResult result) {
  switch (result) {
  case CacheResult::Compiled:
    return "compiled";
  case CacheResult::MemoryHit:
    return "in-memory hit";
  case CacheResult::DiskHit:
    return "disk hit";
  }
  llvm_unreachable("unknown cache result");
}

namespace {
/// Times a stage into a report.
class StageTimer {
public:
  StageTimer(CompileReport &report, StringRef name)
      : report(report), name(name.str()),
        start(std::chrono::steady_clock::now()) {}
  ~StageTimer() {
    std::chrono::duration<double> seconds =
        std::chrono::steady_clock::now() - start;
    report.stages.emplace_back(name, seconds.count());
  }

private:
  CompileReport &report;
  std::string name;
  std::chrono::steady_clock::time_point start;
};

/// Moves the functions of llvm.global_ctors (or _dtors) out of the list:
/// they become external, their names are recorded in priority order, and
/// the loader calls them itself. A module loaded from the cache then starts
/// exactly like a freshly compiled one.
void takeStructors(llvm::Module &module, StringRef variable,
                   std::vector<std::string> &names) {
  llvm::GlobalVariable *list = module.getNamedGlobal(variable);
  if (!list)
    return;
  // (priority, position, function): sorted by priority, stable by position.
  SmallVector<std::tuple<uint64_t, size_t, llvm::Function *>> entries;
  if (auto *init = dyn_cast<llvm::ConstantArray>(list->getInitializer())) {
    for (llvm::Value *operand : init->operands()) {
      auto *entry = dyn_cast<llvm::ConstantStruct>(operand);
      if (!entry || entry->getNumOperands() < 2)
        continue;
      auto *priority = dyn_cast<llvm::ConstantInt>(entry->getOperand(0));
      auto *function =
          dyn_cast<llvm::Function>(entry->getOperand(1)->stripPointerCasts());
      if (!function)
        continue;
      entries.emplace_back(priority ? priority->getZExtValue() : 65535,
                           entries.size(), function);
    }
  }
  llvm::sort(entries);
  for (auto [priority, position, function] : entries) {
    function->setLinkage(llvm::GlobalValue::ExternalLinkage);
    function->setVisibility(llvm::GlobalValue::DefaultVisibility);
    names.push_back(function->getName().str());
  }
  list->eraseFromParent();
}

/// Says once per process and directory that a disk cache is not used.
void warnUntrustedCache(StringRef directory, StringRef why) {
  static std::mutex mutex;
  static llvm::StringSet<> warned;
  std::lock_guard<std::mutex> lock(mutex);
  if (!warned.insert(directory).second)
    return;
  llvm::errs() << "tile: warning: not using the disk cache in " << directory
               << ": " << why
               << " (tile runs code from its cache, so only a directory of "
                  "this user's, writable by no one else, is used)\n";
}

llvm::orc::SymbolMap makeSymbolMap(llvm::orc::MangleAndInterner &interner,
                                   const SymbolMap &symbols) {
  llvm::orc::SymbolMap map;
  for (const auto &[name, address] : symbols)
    map[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                           llvm::JITSymbolFlags::Exported};
  return map;
}
} // namespace

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

Executable::~Executable() {
  if (!initialized)
    return;
  for (const std::string &name : llvm::reverse(destructors)) {
    std::string error;
    FailureOr<void *> symbol = lookupSymbol(name, &error);
    if (succeeded(symbol))
      reinterpret_cast<void (*)()>(*symbol)();
  }
}

FailureOr<void *> Executable::lookupSymbol(StringRef name,
                                           std::string *error) {
  if (engine) {
    llvm::Expected<void *> symbol = engine->lookup(name);
    if (!symbol) {
      *error = llvm::toString(symbol.takeError());
      return failure();
    }
    return *symbol;
  }
  llvm::Expected<llvm::orc::ExecutorAddr> symbol = jit->lookup(name);
  if (!symbol) {
    *error = llvm::toString(symbol.takeError());
    return failure();
  }
  return symbol->toPtr<void *>();
}

FailureOr<Executable::PackedFunction>
Executable::lookup(StringRef function, std::string *error) {
  std::lock_guard<std::mutex> lock(functionsMutex);
  auto it = functions.find(function);
  if (it != functions.end())
    return it->second;
  FailureOr<void *> symbol = lookupSymbol(("_mlir_" + function).str(), error);
  if (failed(symbol))
    return failure();
  auto packed = reinterpret_cast<PackedFunction>(*symbol);
  functions[function] = packed;
  return packed;
}

FailureOr<const Signature *>
Executable::getSignature(StringRef function, std::string *error) const {
  auto it = signatures.find(function);
  if (it != signatures.end())
    return &it->second;
  if (error) {
    auto reason = signatureErrors.find(function);
    *error = reason != signatureErrors.end()
                 ? reason->second
                 : "no public function @" + function.str() +
                       " in the compiled module";
  }
  return failure();
}

void Executable::recordSignatures(ModuleOp module) {
  if (hasSignatures)
    return;
  hasSignatures = true;
  for (auto function : module.getOps<FunctionOpInterface>()) {
    if (!function.isPublic() || function.isExternal())
      continue;
    std::string error;
    FailureOr<Signature> signature = Signature::get(function, error);
    if (succeeded(signature))
      signatures[function.getName()] = std::move(*signature);
    else
      signatureErrors[function.getName()] = std::move(error);
  }
}

LogicalResult Executable::runConstructors(std::string *error) {
  for (const std::string &name : constructors) {
    FailureOr<void *> symbol = lookupSymbol(name, error);
    if (failed(symbol))
      return failure();
    reinterpret_cast<void (*)()>(*symbol)();
  }
  initialized = true;
  return success();
}

//===----------------------------------------------------------------------===//
// Compiler
//===----------------------------------------------------------------------===//

Compiler::Compiler(CompileOptions options, SymbolMap runtimeSymbols)
    : options(std::move(options)), runtimeSymbols(std::move(runtimeSymbols)) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  const auto &builtins = getHostBuiltins();
  this->runtimeSymbols.insert(this->runtimeSymbols.end(), builtins.begin(),
                              builtins.end());
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> machine =
      getHostMachineBuilder(resolveHostCpu(this->options.cpu));
  if (machine)
    hostMachine = std::move(*machine);
  else
    hostMachineError = llvm::toString(machine.takeError());
  if (!this->options.cacheDir.empty()) {
    diskCache = std::make_unique<DiskCache>(this->options.cacheDir);
    std::string why;
    if (failed(diskCache->checkTrusted(&why))) {
      warnUntrustedCache(this->options.cacheDir, why);
      diskCache.reset();
    }
  }
}

Compiler::~Compiler() = default;

std::string Compiler::getKey(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "tile-jit-key-v1\n";
  module->print(os, OpPrintingFlags().printGenericOpForm());
  os << "\ntarget=" << stringifyTarget(options.target)
     << "\nchip=" << options.chip << "\nopt=" << options.optLevel
     << "\ntile=" << TILE_VERSION << " build=" << TILE_BUILD_ID
     << "\nllvm=" << LLVM_VERSION_STRING << "\nhost="
     << (hostMachine ? describeHostMachine(*hostMachine) : hostMachineError)
     << "\nopenmp=" << usesOpenMP(options);
  if (options.target == Target::NVIDIA)
    os << "\nptxas=" << getPtxasVersion()
       << "\nwarp-specialize=" << options.codegen.warpSpecialize
       << " tma-store=" << options.codegen.tmaStore
       << " tma-multicast=" << options.codegen.tmaMulticast
       << " deepen-pipelines=" << options.codegen.deepenPipelines
       << " raster-blocks=" << options.codegen.rasterBlocks
       << " merge-blocks=" << options.codegen.mergeBlocks;
  return sha256Hex(text);
}

FailureOr<std::shared_ptr<Executable>>
Compiler::compile(ModuleOp module, CompileReport *reportOut) {
  CompileReport local;
  CompileReport &report = reportOut ? *reportOut : local;
  report = CompileReport();
  report.key = getKey(module);
  std::lock_guard<std::mutex> lock(mutex);
  auto known = memory.find(report.key);
  if (known != memory.end()) {
    report.cache = CacheResult::MemoryHit;
    known->second->recordSignatures(module);
    return known->second;
  }
  if (diskCache) {
    std::optional<CacheEntry> entry;
    std::string why;
    {
      StageTimer timer(report, "disk cache lookup");
      entry = diskCache->load(report.key, &why);
    }
    if (entry) {
      std::string error;
      FailureOr<std::shared_ptr<Executable>> loaded;
      {
        StageTimer timer(report, "load cached object");
        loaded = load(*entry, &error);
      }
      if (succeeded(loaded)) {
        report.cache = CacheResult::DiskHit;
        (*loaded)->recordSignatures(module);
        memory[report.key] = *loaded;
        return loaded;
      }
      report.cacheNote = "the cached entry did not load (" + error +
                         "); compiled again";
    } else if (!why.empty()) {
      report.cacheNote = "the cached entry was rejected (" + why +
                         "); compiled again";
    }
  }
  CacheEntry entry;
  FailureOr<std::shared_ptr<Executable>> compiled =
      compileAndLoad(module, diskCache ? &entry : nullptr, report);
  if (failed(compiled))
    return failure();
  if (diskCache) {
    StageTimer timer(report, "disk cache store");
    std::string error;
    if (failed(diskCache->store(report.key, entry, &error))) {
      report.cacheNote = "the disk cache is not writable (" + error +
                         "); running uncached";
      diskCache.reset();
    }
  }
  (*compiled)->recordSignatures(module);
  memory[report.key] = *compiled;
  return compiled;
}

FailureOr<std::shared_ptr<Executable>>
Compiler::compileAndLoad(ModuleOp module, CacheEntry *entry,
                         CompileReport &report) {
  MLIRContext *context = module.getContext();
  OwningOpRef<ModuleOp> lowered = module.clone();
  {
    StageTimer timer(report, "MLIR lowering");
    PassManager pm(context);
    if (failed(buildPipeline(pm, options)))
      return module.emitError("no pipeline for target ")
             << stringifyTarget(options.target);
    if (failed(pm.run(*lowered)))
      return failure();
  }

  std::string deviceBinary = extractDeviceBinary(*lowered);
  DialectRegistry registry;
  registerTileDialects(registry);
  context->appendDialectRegistry(registry);

  // The host CPU's target machine (HostMachine.h): the optimizer needs its
  // cost model to vectorize, the code generator its features (FMA, F16C,
  // AVX...).
  if (!hostMachine)
    return module.emitError("cannot compile for the host CPU: ") << hostMachineError;
  std::optional<llvm::orc::JITTargetMachineBuilder> machineBuilder =
      *hostMachine;
  machineBuilder->setCodeGenOptLevel(
      options.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : options.optLevel == 0 ? llvm::CodeGenOptLevel::None
                              : llvm::CodeGenOptLevel::Default);
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      machineBuilder->createTargetMachine();
  if (!machine)
    return module.emitError("cannot create the host target machine: ")
           << llvm::toString(machine.takeError());

  auto executable = std::shared_ptr<Executable>(new Executable());
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0,
                                machine->get());
  std::string transformError;
  auto transformer = [&](llvm::Module *llvmModule) -> llvm::Error {
    takeStructors(*llvmModule, "llvm.global_ctors", executable->constructors);
    takeStructors(*llvmModule, "llvm.global_dtors", executable->destructors);
    // The engine cannot recover from a failing transformer: keep the error.
    if (llvm::Error error = optimize(llvmModule))
      transformError = llvm::toString(std::move(error));
    return llvm::Error::success();
  };
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.enableObjectDump = entry != nullptr;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  SmallVector<StringRef> libraries;
  if (usesOpenMP(options))
    libraries.push_back(getOpenMPRuntime());
  engineOptions.sharedLibPaths = libraries;

  {
    StageTimer timer(report, "LLVM code generation");
    llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
        ExecutionEngine::create(*lowered, engineOptions, std::move(*machine));
    if (!engine)
      return module.emitError("host compilation failed: ")
             << llvm::toString(engine.takeError());
    if (!transformError.empty())
      return module.emitError("LLVM optimization failed: ") << transformError;
    (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
      return makeSymbolMap(interner, runtimeSymbols);
    });
    executable->engine = std::move(*engine);
    // Looking up one function compiles and links the whole module.
    std::string error;
    for (auto function : lowered->getOps<LLVM::LLVMFuncOp>()) {
      if (function.isExternal())
        continue;
      if (failed(executable->lookup(function.getSymName(), &error)))
        return module.emitError("linking the host code failed: ") << error;
      break;
    }
  }
  if (entry) {
    entry->hostObject = captureFileWrites(
        [&](StringRef path) { executable->engine->dumpToObjectFile(path); });
    entry->deviceBinary = std::move(deviceBinary);
    entry->constructors = executable->constructors;
    entry->destructors = executable->destructors;
    entry->description = ("target " + stringifyTarget(options.target) +
                          (options.chip.empty() ? "" : " " + options.chip))
                             .str();
  }
  std::string error;
  if (options.initialize && failed(executable->runConstructors(&error)))
    return module.emitError("loading the module failed: ") << error;
  return executable;
}

FailureOr<std::shared_ptr<Executable>>
Compiler::load(const CacheEntry &entry, std::string *error) {
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder().create();
  if (!jit) {
    *error = llvm::toString(jit.takeError());
    return failure();
  }
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  const llvm::DataLayout &layout = (*jit)->getDataLayout();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      layout.getGlobalPrefix());
  if (!process) {
    *error = llvm::toString(process.takeError());
    return failure();
  }
  main.addGenerator(std::move(*process));
  if (usesOpenMP(options)) {
    auto openmp = llvm::orc::DynamicLibrarySearchGenerator::Load(
        getOpenMPRuntime().c_str(), layout.getGlobalPrefix());
    if (!openmp) {
      *error = llvm::toString(openmp.takeError());
      return failure();
    }
    main.addGenerator(std::move(*openmp));
  }
  llvm::orc::MangleAndInterner interner((*jit)->getExecutionSession(), layout);
  if (llvm::Error e =
          main.define(llvm::orc::absoluteSymbols(
              makeSymbolMap(interner, runtimeSymbols)))) {
    *error = llvm::toString(std::move(e));
    return failure();
  }
  if (llvm::Error e = (*jit)->addObjectFile(llvm::MemoryBuffer::getMemBufferCopy(
          entry.hostObject, "tile-cached-host.o"))) {
    *error = llvm::toString(std::move(e));
    return failure();
  }
  auto executable = std::shared_ptr<Executable>(new Executable());
  executable->jit = std::move(*jit);
  executable->constructors = entry.constructors;
  executable->destructors = entry.destructors;
  if (options.initialize && failed(executable->runConstructors(error)))
    return failure();
  return executable;
}
