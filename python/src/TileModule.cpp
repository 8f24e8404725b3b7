//===- TileModule.cpp - tile._tile, the Python binding --------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A thin binding over the JIT library: parse tile IR text produced by the
// Python frontend (its locations are Python source lines), compile it for a
// target through jit::Compiler (memory and disk caches), in parallel threads
// with the GIL released, and call the result with DLPack arrays. Compile
// errors come back as structured diagnostics, never as IR dumps.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include "tile/InitTile.h"
#include "tile/JIT/Compiler.h"
#include "tile/JIT/Toolchain.h"
#include "tile/Pipelines/Pipelines.h"

#ifdef TILE_HAS_CUDA_RUNTIME
#include "tile/Runtime/CudaRuntime.h"
#endif

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/TargetSelect.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace nb = nanobind;
using namespace nb::literals;
using namespace mlir;
using namespace mlir::tile::python;
namespace jit = mlir::tile::jit;

namespace {

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

/// One diagnostic at a Python source position (file empty when unknown).
struct PyDiagnostic {
  std::string severity, file, message;
  int line = 0, column = 0;
  std::vector<PyDiagnostic> notes;
};

PyDiagnostic toDiagnostic(mlir::Diagnostic &diag) {
  PyDiagnostic d;
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    d.severity = "error";
    break;
  case DiagnosticSeverity::Warning:
    d.severity = "warning";
    break;
  case DiagnosticSeverity::Note:
    d.severity = "note";
    break;
  case DiagnosticSeverity::Remark:
    d.severity = "remark";
    break;
  }
  d.message = diag.str();
  // The innermost file position (macro calls are call-site locations).
  diag.getLocation()->walk([&](Location loc) {
    if (auto file = dyn_cast<FileLineColLoc>(loc)) {
      d.file = file.getFilename().str();
      d.line = file.getLine();
      d.column = file.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  for (mlir::Diagnostic &note : diag.getNotes())
    d.notes.push_back(toDiagnostic(note));
  return d;
}

/// Collects the diagnostics of one compilation.
class Collector {
public:
  explicit Collector(MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          diagnostics.push_back(toDiagnostic(diag));
          return success();
        }) {}
  std::vector<PyDiagnostic> diagnostics;

private:
  ScopedDiagnosticHandler handler;
};

const DialectRegistry &getRegistry() {
  static DialectRegistry *registry = [] {
    auto *r = new DialectRegistry();
    mlir::tile::registerTileDialects(*r);
    return r;
  }();
  return *registry;
}

std::unique_ptr<MLIRContext> makeContext() {
  auto context = std::make_unique<MLIRContext>(
      getRegistry(), MLIRContext::Threading::DISABLED);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  context->printStackTraceOnDiagnostic(false);
  return context;
}

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

jit::Target parseTarget(const std::string &name) {
  if (name == "cpu")
    return jit::Target::CPU;
  if (name == "cuda")
    return jit::Target::CUDA;
  if (name == "rocm")
    return jit::Target::ROCm;
  throw nb::value_error(("unknown target '" + name +
                         "' (expected cpu, cuda or rocm)")
                            .c_str());
}

DeviceKind deviceOf(jit::Target target) {
  switch (target) {
  case jit::Target::CPU:
    return DeviceKind::CPU;
  case jit::Target::CUDA:
    return DeviceKind::CUDA;
  case jit::Target::ROCm:
    return DeviceKind::ROCm;
  }
  return DeviceKind::CPU;
}

/// What a compilation gives back to Python.
struct CompileResult {
  std::shared_ptr<jit::Executable> executable;
  jit::Executable::PackedFunction function = nullptr;
  std::vector<PyDiagnostic> diagnostics;
  std::string cache, key, cacheNote;
  std::vector<std::pair<std::string, double>> stages;
  bool ok() const { return executable != nullptr; }
};

/// Compiles IR text for one target. A pool of jit::Compilers (each compiles
/// one module at a time) lets several threads compile at once; they share
/// the disk cache.
class Compiler {
public:
  Compiler(const std::string &target, std::string chip, unsigned optLevel,
           std::string cacheDir) {
    options.target = parseTarget(target);
    options.chip = std::move(chip);
    options.optLevel = optLevel;
    options.cacheDir = std::move(cacheDir);
    if (optLevel > 3)
      throw nb::value_error("opt_level must be 0 to 3");
#ifdef TILE_HAS_CUDA_RUNTIME
    if (options.target == jit::Target::CUDA)
      runtimeSymbols = mlir::tile::runtime::cuda::getRuntimeSymbols();
#endif
    if (options.target == jit::Target::ROCm)
      throw nb::value_error("the rocm target is not available in this build");
  }

  /// Compiles one module (thread-safe; call without the GIL).
  CompileResult compile(const std::string &ir, const std::string &entry) {
    std::unique_ptr<jit::Compiler> compiler = acquire();
    CompileResult result = compileWith(*compiler, ir, entry);
    release(std::move(compiler));
    return result;
  }

  /// Compiles modules on `workers` threads; `progress` is called (with the
  /// GIL) after each one finishes.
  std::vector<CompileResult>
  compileMany(const std::vector<std::pair<std::string, std::string>> &modules,
              unsigned workers, nb::object progress) {
    std::vector<CompileResult> results(modules.size());
    std::atomic<size_t> nextIndex{0};
    std::mutex doneMutex;
    std::condition_variable doneChanged;
    size_t done = 0;
    workers = std::max(1u, std::min<unsigned>(workers, modules.size()));
    {
      nb::gil_scoped_release noGil;
      std::vector<std::thread> threads;
      for (unsigned w = 0; w < workers; ++w)
        threads.emplace_back([&] {
          while (true) {
            size_t i = nextIndex++;
            if (i >= modules.size())
              return;
            results[i] = compile(modules[i].first, modules[i].second);
            std::lock_guard<std::mutex> lock(doneMutex);
            ++done;
            doneChanged.notify_all();
          }
        });
      // Report progress from this thread, taking the GIL only to do so.
      size_t reported = 0;
      while (reported < modules.size()) {
        size_t now;
        {
          std::unique_lock<std::mutex> lock(doneMutex);
          doneChanged.wait(lock, [&] { return done > reported; });
          now = done;
        }
        if (progress.is_valid() && !progress.is_none()) {
          nb::gil_scoped_acquire gil;
          try {
            progress(now - reported);
          } catch (nb::python_error &e) {
            e.discard_as_unraisable("tile progress callback");
          }
        }
        reported = now;
      }
      for (std::thread &t : threads)
        t.join();
    }
    return results;
  }

  /// The cache key of a module (parses it; errors give an empty key).
  std::string getKey(const std::string &ir) {
    std::unique_ptr<MLIRContext> context = makeContext();
    Collector collector(*context);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(ir, ParserConfig(context.get()));
    if (!module)
      return "";
    std::unique_ptr<jit::Compiler> compiler = acquire();
    std::string key = compiler->getKey(*module);
    release(std::move(compiler));
    return key;
  }

  std::string getTarget() const {
    return jit::stringifyTarget(options.target).str();
  }
  const std::string &getChip() const { return options.chip; }
  const std::string &getCacheDir() const { return options.cacheDir; }
  DeviceKind getDevice() const { return deviceOf(options.target); }

private:
  CompileResult compileWith(jit::Compiler &compiler, const std::string &ir,
                            const std::string &entry) {
    CompileResult result;
    std::unique_ptr<MLIRContext> context = makeContext();
    Collector collector(*context);
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(ir, ParserConfig(context.get()));
    if (!module) {
      result.diagnostics = std::move(collector.diagnostics);
      return result;
    }
    jit::CompileReport report;
    FailureOr<std::shared_ptr<jit::Executable>> executable =
        compiler.compile(*module, &report);
    result.diagnostics = std::move(collector.diagnostics);
    result.cache = jit::stringifyCacheResult(report.cache).str();
    result.key = report.key;
    result.cacheNote = report.cacheNote;
    result.stages = report.stages;
    if (failed(executable))
      return result;
    std::string error;
    FailureOr<jit::Executable::PackedFunction> function =
        (*executable)->lookup(entry, &error);
    if (failed(function)) {
      PyDiagnostic d;
      d.severity = "error";
      d.message = "cannot find @" + entry + " in the compiled module: " + error;
      result.diagnostics.push_back(d);
      return result;
    }
    result.executable = *executable;
    result.function = *function;
    return result;
  }

  std::unique_ptr<jit::Compiler> acquire() {
    {
      std::lock_guard<std::mutex> lock(poolMutex);
      if (!pool.empty()) {
        std::unique_ptr<jit::Compiler> c = std::move(pool.back());
        pool.pop_back();
        return c;
      }
    }
    return std::make_unique<jit::Compiler>(options, runtimeSymbols);
  }
  void release(std::unique_ptr<jit::Compiler> compiler) {
    std::lock_guard<std::mutex> lock(poolMutex);
    pool.push_back(std::move(compiler));
  }

  jit::CompileOptions options;
  jit::SymbolMap runtimeSymbols;
  std::mutex poolMutex;
  std::vector<std::unique_ptr<jit::Compiler>> pool;
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// A compiled entry point with its parameters: calling it checks and packs
/// the arguments and runs the host function.
class Kernel {
public:
  Kernel(const CompileResult &result, std::vector<Param> params,
         DeviceKind device, int deviceId)
      : executable(result.executable), function(result.function),
        params(std::move(params)), device(device), deviceId(deviceId) {
    if (!executable)
      throw nb::value_error("the compilation failed; there is no kernel");
  }

  void call(nb::args args) {
    PackedCall packed;
    PyObject *tuple = args.ptr();
    if (!packArguments(params, device, deviceId, reinterpret_cast<PyTupleObject *>(tuple)->ob_item,
                       PyTuple_GET_SIZE(tuple), packed))
      throw nb::python_error();
    if (device == DeviceKind::CPU) {
      nb::gil_scoped_release noGil;
      function(packed.data());
      return;
    }
    function(packed.data());
#ifdef TILE_HAS_CUDA_RUNTIME
    if (device == DeviceKind::CUDA) {
      std::string error;
      if (!mlir::tile::runtime::cuda::synchronize(&error))
        throw std::runtime_error("the kernel failed: " + error);
    }
#endif
  }

  size_t getNumParams() const { return params.size(); }

private:
  std::shared_ptr<jit::Executable> executable;
  jit::Executable::PackedFunction function;
  std::vector<Param> params;
  DeviceKind device;
  int deviceId;
};

/// Parses a parameter description from Python:
/// (name, "scalar", dtype) or
/// (name, "memref" | "pointer", dtype, [(kind, value, group)] sizes,
///  [(kind, value, group)] strides).
Param parseParam(nb::handle spec) {
  nb::tuple t = nb::cast<nb::tuple>(spec);
  Param p;
  p.name = nb::cast<std::string>(t[0]);
  std::string kind = nb::cast<std::string>(t[1]);
  p.dtype = static_cast<DType>(nb::cast<int>(t[2]));
  if (kind == "scalar") {
    p.isScalar = true;
    return p;
  }
  p.isPointer = kind == "pointer";
  auto extents = [](nb::handle list) {
    std::vector<Extent> out;
    for (nb::handle e : list) {
      nb::tuple et = nb::cast<nb::tuple>(e);
      Extent x;
      x.kind = static_cast<Extent::Kind>(nb::cast<int>(et[0]));
      x.value = nb::cast<int64_t>(et[1]);
      x.group = nb::cast<int>(et[2]);
      out.push_back(x);
    }
    return out;
  };
  p.sizes = extents(t[3]);
  p.strides = extents(t[4]);
  if (p.sizes.size() != p.strides.size())
    throw nb::value_error("sizes and strides differ in rank");
  return p;
}

//===----------------------------------------------------------------------===//
// Device
//===----------------------------------------------------------------------===//

nb::object cudaDevice() {
#ifdef TILE_HAS_CUDA_RUNTIME
  std::string why;
  if (!mlir::tile::runtime::cuda::initialize(&why))
    return nb::make_tuple(nb::none(), why);
  auto info = mlir::tile::runtime::cuda::getDeviceInfo();
  nb::dict d;
  d["name"] = info.name;
  d["chip"] = info.chip();
  d["multiprocessors"] = info.multiprocessors;
  d["shared_memory_per_block_optin"] = info.sharedMemoryPerBlockOptin;
  return nb::make_tuple(d, "");
#else
  return nb::make_tuple(nb::none(),
                        "this build of tile has no CUDA runtime (cuda.h was "
                        "not found)");
#endif
}

/// Lowers `ir` with the target's pipeline and returns the device code as
/// text (PTX on CUDA); empty on the CPU.
nb::tuple deviceSource(const std::string &ir, const std::string &target,
                       const std::string &chip) {
  std::unique_ptr<MLIRContext> context = makeContext();
  Collector collector(*context);
  std::string text;
  {
    nb::gil_scoped_release noGil;
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(ir, ParserConfig(context.get()));
    if (module && target == "cuda") {
      PassManager pm(context.get());
      mlir::tile::TileToNVVMPipelineOptions options;
      options.chip = chip;
      options.format = "isa";
      mlir::tile::buildTileToNVVMPipeline(pm, options);
      if (succeeded(pm.run(*module)))
        text = jit::extractDeviceBinary(*module);
    }
  }
  return nb::make_tuple(text, collector.diagnostics);
}

} // namespace

NB_MODULE(_tile, m) {
  m.doc() = "tile's JIT library (compile, cache, run) for the Python frontend";
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  (void)getRegistry();

  nb::class_<PyDiagnostic>(m, "Diagnostic")
      .def_ro("severity", &PyDiagnostic::severity)
      .def_ro("file", &PyDiagnostic::file)
      .def_ro("line", &PyDiagnostic::line)
      .def_ro("column", &PyDiagnostic::column)
      .def_ro("message", &PyDiagnostic::message)
      .def_ro("notes", &PyDiagnostic::notes);

  nb::class_<CompileResult>(m, "CompileResult")
      .def_prop_ro("ok", &CompileResult::ok)
      .def_ro("diagnostics", &CompileResult::diagnostics)
      .def_ro("cache", &CompileResult::cache)
      .def_ro("key", &CompileResult::key)
      .def_ro("cache_note", &CompileResult::cacheNote)
      .def_ro("stages", &CompileResult::stages);

  nb::class_<Compiler>(m, "Compiler")
      .def(nb::init<const std::string &, std::string, unsigned, std::string>(),
           "target"_a, "chip"_a = "", "opt_level"_a = 3, "cache_dir"_a = "")
      .def(
          "compile",
          [](Compiler &self, const std::string &ir, const std::string &entry) {
            nb::gil_scoped_release noGil;
            return self.compile(ir, entry);
          },
          "ir"_a, "entry"_a)
      .def("compile_many", &Compiler::compileMany, "modules"_a,
           "num_workers"_a, "progress"_a = nb::none())
      .def("key", &Compiler::getKey, "ir"_a)
      .def_prop_ro("target", &Compiler::getTarget)
      .def_prop_ro("chip", &Compiler::getChip)
      .def_prop_ro("cache_dir", &Compiler::getCacheDir);

  nb::class_<Kernel>(m, "Kernel")
      .def(
          "__init__",
          [](Kernel *self, const CompileResult &result, nb::list specs,
             const Compiler &compiler, int deviceId) {
            std::vector<Param> params;
            for (nb::handle spec : specs)
              params.push_back(parseParam(spec));
            new (self)
                Kernel(result, std::move(params), compiler.getDevice(), deviceId);
          },
          "result"_a, "params"_a, "compiler"_a, "device_id"_a = 0)
      .def("__call__", &Kernel::call)
      .def_prop_ro("num_params", &Kernel::getNumParams);

  m.def("cuda_device", &cudaDevice,
        "(info dict, '') for the CUDA device tile runs on, or (None, why)");
  m.def("device_source", &deviceSource, "ir"_a, "target"_a, "chip"_a);
  m.def(
      "set_torch",
      [](nb::handle tensorType, nb::handle toDlpack) {
        if (!PyType_Check(tensorType.ptr()) || !PyCallable_Check(toDlpack.ptr()))
          throw nb::type_error("set_torch(torch.Tensor, to_dlpack)");
        setTorch(tensorType.ptr(), toDlpack.ptr());
      },
      "tensor_type"_a, "to_dlpack"_a);
  m.def("default_cache_dir", &jit::DiskCache::getDefaultDirectory);
  m.def("clear_cache", [](const std::string &dir) {
    return jit::DiskCache(dir).clear();
  });
}
