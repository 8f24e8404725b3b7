//===- Compiler.h - Compile, memoize and load tile programs -----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The JIT library behind tile-run (and the Python frontend): lowers a tile
// module for a target, compiles the host side (and, on GPUs, the embedded
// device binary) and loads it. Results are memoized in memory and on disk:
// the key is the SHA-256 of the module's canonical text, the target, chip
// and options, tile's version and build id, LLVM's version and, for CUDA,
// ptxas's version. A warm disk hit loads the cached object directly, skipping
// every MLIR pass and all of LLVM's code generation.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_COMPILER_H
#define TILE_JIT_COMPILER_H

#include "tile/Conversion/TileToGPU/GpuCodegenOptions.h"
#include "tile/JIT/Cache.h"
#include "tile/JIT/Signature.h"
#include "tile/Target/Target.h"

#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::tile::jit {

/// Where compiled kernels run: the CPU, or an NVIDIA (CUDA) or AMD (ROCm)
/// GPU; spelled "cpu", "cuda", "rocm".
using Target = Vendor;
StringRef stringifyTarget(Target target);

struct CompileOptions {
  Target target = Target::CPU;
  /// The GPU chip (sm_80, sm_90a, gfx942); ignored on the CPU.
  std::string chip;
  /// Which strategies the GPU lowering builds among those the chip has
  /// (warp specialization, TMA stores, TMA multicast).
  GpuCodegenOptions codegen;
  /// LLVM optimization level of the host code (0-3).
  unsigned optLevel = 3;
  /// The CPU the host code is compiled for: empty for $TILE_CPU, else this
  /// machine's ("host"); or an LLVM CPU name such as "x86-64"
  /// (HostMachine.h).
  std::string cpu;
  /// Spread a CPU kernel's blocks over threads (OpenMP), where this process
  /// can load libomp (HostMachine.h); otherwise they run in order.
  bool cpuParallel = true;
  /// The disk cache directory; empty: no disk cache.
  std::string cacheDir;
  /// Run the module's constructors (which load GPU binaries) once loaded;
  /// off to only compile and cache.
  bool initialize = true;
};

/// Where a compiled module came from.
enum class CacheResult { Compiled, MemoryHit, DiskHit };
StringRef stringifyCacheResult(CacheResult result);

struct CompileReport {
  CacheResult cache = CacheResult::Compiled;
  std::string key;
  /// Why the disk cache was not used or an entry was rejected, if so.
  std::string cacheNote;
  /// Wall seconds of each stage that ran, in order.
  std::vector<std::pair<std::string, double>> stages;
};

/// Functions the generated host code calls (the mgpu* runtime), by name.
using SymbolMap = std::vector<std::pair<std::string, void *>>;

/// A compiled, loaded module. Its functions are called through MLIR's packed
/// interface: an array of pointers, one per LLVM-level argument (a memref
/// contributes its allocated pointer, aligned pointer, offset, sizes and
/// strides).
class Executable {
public:
  using PackedFunction = void (*)(void **);
  ~Executable();

  /// The packed entry point of `function`.
  FailureOr<PackedFunction> lookup(StringRef function, std::string *error);

  /// The signature of public function `function` of the compiled module;
  /// fails when there is none or a caller cannot fill it in (Signature::get
  /// says why).
  FailureOr<const Signature *> getSignature(StringRef function,
                                            std::string *error) const;

private:
  friend class Compiler;
  Executable() = default;
  FailureOr<void *> lookupSymbol(StringRef name, std::string *error);
  LogicalResult runConstructors(std::string *error);
  void recordSignatures(ModuleOp module);

  std::unique_ptr<ExecutionEngine> engine;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::vector<std::string> constructors, destructors;
  bool initialized = false;
  std::mutex functionsMutex;
  llvm::StringMap<PackedFunction> functions;
  /// Per public function, its signature or why it has none.
  bool hasSignatures = false;
  llvm::StringMap<Signature> signatures;
  llvm::StringMap<std::string> signatureErrors;
};

class Compiler {
public:
  explicit Compiler(CompileOptions options, SymbolMap runtimeSymbols = {});
  ~Compiler();

  /// Compiles `module` (or finds it in memory or on disk) and loads it.
  /// Errors are emitted as diagnostics on the module.
  FailureOr<std::shared_ptr<Executable>> compile(ModuleOp module,
                                                 CompileReport *report = nullptr);

  /// The cache key of `module` under this compiler's options.
  std::string getKey(ModuleOp module);

  /// The disk cache, if enabled.
  DiskCache *getDiskCache() { return diskCache.get(); }
  const CompileOptions &getOptions() const { return options; }

private:
  FailureOr<std::shared_ptr<Executable>>
  compileAndLoad(ModuleOp module, CacheEntry *entry, CompileReport &report);
  FailureOr<std::shared_ptr<Executable>> load(const CacheEntry &entry,
                                              std::string *error);

  CompileOptions options;
  /// The runtime's symbols and compiler-rt's builtins.
  SymbolMap runtimeSymbols;
  /// The host machine options.cpu names, or why there is none.
  std::optional<llvm::orc::JITTargetMachineBuilder> hostMachine;
  std::string hostMachineError;
  std::unique_ptr<DiskCache> diskCache;
  std::mutex mutex;
  llvm::StringMap<std::shared_ptr<Executable>> memory;
};

} // namespace mlir::tile::jit

#endif // TILE_JIT_COMPILER_H
