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
#include "tile/JIT/Device.h"
#include "tile/JIT/Kernel.h"
#include "tile/JIT/Toolchain.h"
#include "tile/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
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
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace nb = nanobind;
using namespace nb::literals;
using namespace mlir;
using namespace mlir::tile::python;
namespace jit = mlir::tile::jit;
using mlir::tile::GpuCodegenOptions;

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
// Devices
//===----------------------------------------------------------------------===//

jit::Target parseTarget(const std::string &name) {
  if (std::optional<jit::Target> target = jit::parseTarget(name))
    return *target;
  throw nb::value_error(("unknown target '" + name +
                         "' (expected cpu, cuda or rocm)")
                            .c_str());
}

/// The process's device of each target and GPU ordinal, made on first use
/// (the JIT library's; kernels keep a reference, so they live as long as
/// the module).
jit::Device *getDevice(jit::Target target, int ordinal, std::string *why) {
  static std::mutex mutex;
  static std::map<std::pair<jit::Target, int>, std::unique_ptr<jit::Device>>
      devices;
  static std::map<std::pair<jit::Target, int>, std::string> failures;
  if (target == jit::Target::CPU)
    ordinal = 0;
  std::pair<jit::Target, int> key(target, ordinal);
  std::lock_guard<std::mutex> lock(mutex);
  auto known = devices.find(key);
  if (known != devices.end())
    return known->second.get();
  auto failed = failures.find(key);
  if (failed != failures.end()) {
    *why = failed->second;
    return nullptr;
  }
  std::unique_ptr<jit::Device> device =
      target == jit::Target::CPU
          ? jit::createCpuDevice()
          : jit::createGpuDevice(target, "", why, ordinal);
  if (!device) {
    failures[key] = *why;
    return nullptr;
  }
  return (devices[key] = std::move(device)).get();
}

jit::Device &requireDevice(jit::Target target, int ordinal = 0) {
  std::string why;
  jit::Device *device = getDevice(target, ordinal, &why);
  if (!device)
    throw std::runtime_error("no " + jit::stringifyTarget(target).str() +
                             " device: " + why);
  return *device;
}

/// A callable giving the current stream of a device index (torch's
/// _cuda_getCurrentRawStream): kernels launch there, asynchronously.
PyObject *currentStream = nullptr;

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// What a compilation gives back to Python.
struct CompileResult {
  std::shared_ptr<jit::Executable> executable;
  jit::Executable::PackedFunction function = nullptr;
  std::vector<PyDiagnostic> diagnostics;
  std::string cache, key, cacheNote;
  std::vector<std::pair<std::string, double>> stages;
  bool ok() const { return executable != nullptr; }
};

/// GpuCodegenOptions from Python's keyword arguments.
GpuCodegenOptions makeCodegenOptions(bool warpSpecialize, bool tmaStore,
                                     bool tmaMulticast, bool deepenPipelines,
                                     bool rasterBlocks, bool mergeBlocks) {
  GpuCodegenOptions codegen;
  codegen.warpSpecialize = warpSpecialize;
  codegen.tmaStore = tmaStore;
  codegen.tmaMulticast = tmaMulticast;
  codegen.deepenPipelines = deepenPipelines;
  codegen.rasterBlocks = rasterBlocks;
  codegen.mergeBlocks = mergeBlocks;
  return codegen;
}

/// Compiles IR text for one target. A pool of jit::Compilers (each compiles
/// one module at a time) lets several threads compile at once; they share
/// the disk cache.
class Compiler {
public:
  Compiler(const std::string &target, std::string chip, unsigned optLevel,
           std::string cacheDir, GpuCodegenOptions codegen)
      : device(requireDevice(parseTarget(target))) {
    if (optLevel > 3)
      throw nb::value_error("opt_level must be 0 to 3");
    options = device.getCompileOptions();
    if (!chip.empty())
      options.chip = std::move(chip);
    options.optLevel = optLevel;
    options.cacheDir = std::move(cacheDir);
    options.codegen = codegen;
    runtimeSymbols = device.getRuntimeSymbols();
  }

  /// Compiles one module (thread-safe; call without the GIL). On the GPU,
  /// in a scope of the device: loading the code there leaves the thread's
  /// current device (torch's) as it was.
  CompileResult compile(const std::string &ir, const std::string &entry) {
    jit::DeviceScope scope(device);
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
  const GpuCodegenOptions &getCodegenOptions() const { return options.codegen; }
  jit::Target getJitTarget() const { return options.target; }
  jit::Device &getDevice() const { return device; }

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

  jit::Device &device;
  jit::CompileOptions options;
  jit::SymbolMap runtimeSymbols;
  std::mutex poolMutex;
  std::vector<std::unique_ptr<jit::Compiler>> pool;
};

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// A compiled entry point with its parameters: calling it checks and packs
/// the arguments and calls through the JIT library's Kernel, on the GPU the
/// arrays are on (the compiled code runs on any GPU of the target).
class Kernel {
public:
  Kernel(const CompileResult &result, const std::string &entry,
         std::vector<Param> params, Compiler &compiler, int deviceId)
      : params(std::move(params)), device(compiler.getJitTarget()),
        deviceId(deviceId) {
    if (!result.executable)
      throw nb::value_error("the compilation failed; there is no kernel");
    std::string error;
    FailureOr<jit::Kernel> k =
        jit::Kernel::get(result.executable, entry, compiler.getDevice(), &error);
    if (failed(k))
      throw std::runtime_error(error);
    const jit::Signature &signature = k->getSignature();
    if (signature.parameters.size() != this->params.size())
      throw std::runtime_error("internal error: the frontend describes " +
                               std::to_string(this->params.size()) +
                               " parameters, the compiled function has " +
                               std::to_string(signature.parameters.size()));
    for (auto [param, compiled] : llvm::zip(this->params, signature.parameters))
      param.written = compiled.written;
    packed.emplace(k->makeArguments());
    size_t ordinal = compiler.getDevice().getOrdinal();
    kernels.resize(ordinal + 1);
    kernels[ordinal] = std::make_unique<jit::Kernel>(std::move(*k));
    base = ordinal;
  }

  void call(nb::args args) {
    PyObject *tuple = args.ptr();
    PyObject *const *items = reinterpret_cast<PyTupleObject *>(tuple)->ob_item;
    size_t n = PyTuple_GET_SIZE(tuple);
    std::string error;
    int ordinal = deviceId;
    if (device == jit::Target::CPU) {
      // A call may run long: without the GIL, on arguments of its own.
      jit::PackedArguments local = kernels[base]->makeArguments();
      if (!packArguments(params, device, ordinal, items, n, local))
        throw nb::python_error();
      LogicalResult result = success();
      {
        nb::gil_scoped_release noGil;
        result = kernels[base]->call(local, &error);
      }
      if (failed(result))
        throw std::runtime_error("the kernel failed: " + error);
      return;
    }
    // GPU calls hold the GIL: one PackedArguments, laid out once. (A call
    // that finds it in use lays out its own: torch's stream getter, where
    // it is Python code, lets the GIL go to another thread's call.)
    std::optional<jit::PackedArguments> own;
    jit::PackedArguments *arguments = &*packed;
    if (packedInUse)
      arguments = &own.emplace(kernels[base]->makeArguments());
    InUse inUse(packedInUse, arguments == &*packed);
    if (!packArguments(params, device, ordinal, items, n, *arguments))
      throw nb::python_error();
    const jit::Kernel &kernel = getKernel(ordinal);
    jit::Device &d = kernel.getDevice();
    if (currentStream) {
      void *handle = nullptr;
      if (!getTorchStream(ordinal, &handle)) {
        PyObject *index = PyLong_FromLong(ordinal);
        PyObject *stream = PyObject_CallOneArg(currentStream, index);
        Py_DECREF(index);
        if (!stream)
          throw nb::python_error();
        handle = PyLong_AsVoidPtr(stream);
        Py_DECREF(stream);
      }
      // Exactly torch's stream, the legacy default one (0) included: tile's
      // own stream is non-blocking, so work there did not order with
      // torch's (events around a call timed nothing, and a read could race).
      d.setCallerStream(handle);
      d.setSynchronous(false);
    }
    if (failed(kernel.call(*arguments, &error)))
      throw std::runtime_error("the kernel failed: " + error);
  }

  size_t getNumParams() const { return params.size(); }

private:
  /// Marks the shared arguments in use for a call's lifetime.
  struct InUse {
    InUse(bool &flag, bool mark) : flag(flag), mark(mark) {
      if (mark)
        flag = true;
    }
    ~InUse() {
      if (mark)
        flag = false;
    }
    bool &flag;
    bool mark;
  };

  /// The kernel on GPU `ordinal`, made on its first call there.
  const jit::Kernel &getKernel(int ordinal) {
    if (ordinal >= 0 && size_t(ordinal) < kernels.size() && kernels[ordinal])
      return *kernels[ordinal];
    if (ordinal < 0)
      throw nb::value_error(("no " + jit::stringifyTarget(device).str() +
                             " device " + std::to_string(ordinal))
                                .c_str());
    jit::Device &other = requireDevice(device, ordinal);
    if (kernels.size() <= size_t(ordinal))
      kernels.resize(ordinal + 1);
    kernels[ordinal] =
        std::make_unique<jit::Kernel>(kernels[base]->withDevice(other));
    return *kernels[ordinal];
  }

  std::vector<Param> params;
  jit::Target device;
  /// The GPU of calls without arrays.
  int deviceId;
  /// The kernel by GPU ordinal (each where it stays while calls use it);
  /// `base` is the compiler's device.
  std::vector<std::unique_ptr<jit::Kernel>> kernels;
  size_t base = 0;
  std::optional<jit::PackedArguments> packed;
  bool packedInUse = false;
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
  std::string why;
  jit::Device *device = getDevice(jit::Target::NVIDIA, 0, &why);
  if (!device)
    return nb::make_tuple(nb::none(), why);
  nb::dict d;
  d["name"] = device->getDescription();
  d["chip"] = device->getChip();
  return nb::make_tuple(d, "");
}

/// Waits for the device's work; raises the first error since the last check.
void synchronize(const std::string &target, int ordinal) {
  jit::Device &device = requireDevice(parseTarget(target), ordinal);
  if (failed(device.synchronize()))
    throw std::runtime_error(device.getLastError());
}

/// Lowers `ir` with the JIT library's pipeline for the target and returns
/// the device code as text (PTX on CUDA, AMDGPU assembly on ROCm); empty on
/// the CPU or when lowering failed (see the diagnostics).
nb::tuple deviceSource(const std::string &ir, const std::string &target,
                       const std::string &chip, GpuCodegenOptions codegen) {
  jit::CompileOptions options;
  options.target = parseTarget(target);
  options.chip = chip;
  options.codegen = codegen;
  std::unique_ptr<MLIRContext> context = makeContext();
  Collector collector(*context);
  std::string text;
  {
    nb::gil_scoped_release noGil;
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(ir, ParserConfig(context.get()));
    if (module) {
      FailureOr<std::string> source = jit::getDeviceSource(*module, options);
      if (succeeded(source))
        text = std::move(*source);
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
      .def(
          "__init__",
          [](Compiler *self, const std::string &target, std::string chip,
             unsigned optLevel, std::string cacheDir, bool warpSpecialize,
             bool tmaStore, bool tmaMulticast, bool deepenPipelines,
             bool rasterBlocks, bool mergeBlocks) {
            new (self) Compiler(
                target, std::move(chip), optLevel, std::move(cacheDir),
                makeCodegenOptions(warpSpecialize, tmaStore, tmaMulticast,
                                   deepenPipelines, rasterBlocks, mergeBlocks));
          },
          "target"_a, "chip"_a = "", "opt_level"_a = 3, "cache_dir"_a = "",
          "warp_specialize"_a = true, "tma_store"_a = true,
          "tma_multicast"_a = false, "deepen_pipelines"_a = true,
          "raster_blocks"_a = true, "merge_blocks"_a = true)
      .def(
          "compile",
          [](Compiler &self, const std::string &ir, const std::string &entry) {
            nb::gil_scoped_release noGil;
            return self.compile(ir, entry);
          },
          "ir"_a, "entry"_a)
      .def("compile_many", &Compiler::compileMany, "modules"_a, "num_workers"_a,
           "progress"_a = nb::none())
      .def("key", &Compiler::getKey, "ir"_a)
      .def_prop_ro("target", &Compiler::getTarget)
      .def_prop_ro("chip", &Compiler::getChip)
      .def_prop_ro("cache_dir", &Compiler::getCacheDir)
      .def_prop_ro("codegen", [](const Compiler &self) {
        const GpuCodegenOptions &codegen = self.getCodegenOptions();
        nb::dict options;
        options["warp_specialize"] = codegen.warpSpecialize;
        options["tma_store"] = codegen.tmaStore;
        options["tma_multicast"] = codegen.tmaMulticast;
        options["deepen_pipelines"] = codegen.deepenPipelines;
        options["raster_blocks"] = codegen.rasterBlocks;
        options["merge_blocks"] = codegen.mergeBlocks;
        return options;
      });

  nb::class_<Kernel>(m, "Kernel")
      .def(
          "__init__",
          [](Kernel *self, const CompileResult &result, const std::string &entry,
             nb::list specs, Compiler &compiler, int deviceId) {
            std::vector<Param> params;
            for (nb::handle spec : specs)
              params.push_back(parseParam(spec));
            new (self) Kernel(result, entry, std::move(params), compiler, deviceId);
          },
          "result"_a, "entry"_a, "params"_a, "compiler"_a, "device_id"_a = 0)
      .def("__call__", &Kernel::call)
      .def_prop_ro("num_params", &Kernel::getNumParams);

  m.def("cuda_device", &cudaDevice,
        "(info dict, '') for the CUDA device tile runs on, or (None, why)");
  m.def(
      "device_source",
      [](const std::string &ir, const std::string &target,
         const std::string &chip, bool warpSpecialize, bool tmaStore,
         bool tmaMulticast, bool deepenPipelines, bool rasterBlocks,
         bool mergeBlocks) {
        return deviceSource(ir, target, chip,
                            makeCodegenOptions(warpSpecialize, tmaStore,
                                               tmaMulticast, deepenPipelines,
                                               rasterBlocks, mergeBlocks));
      },
      "ir"_a, "target"_a, "chip"_a, "warp_specialize"_a = true,
      "tma_store"_a = true, "tma_multicast"_a = false,
      "deepen_pipelines"_a = true, "raster_blocks"_a = true,
      "merge_blocks"_a = true,
      "The device code (PTX, AMDGPU assembly) of `ir`, with the diagnostics");
  m.def("synchronize", &synchronize, "target"_a, "device"_a = 0);
  m.def(
      "set_current_stream",
      [](nb::handle getter) {
        if (!PyCallable_Check(getter.ptr()))
          throw nb::type_error("set_current_stream takes a callable");
        Py_INCREF(getter.ptr());
        Py_XDECREF(currentStream);
        currentStream = getter.ptr();
      },
      "getter"_a,
      "Kernels launch on getter(device_index)'s stream, asynchronously");
  m.def(
      "set_torch",
      [](nb::handle tensorType, nb::handle toDlpack) {
        if (!PyType_Check(tensorType.ptr()) || !PyCallable_Check(toDlpack.ptr()))
          throw nb::type_error("set_torch(torch.Tensor, to_dlpack)");
        setTorch(tensorType.ptr(), toDlpack.ptr());
      },
      "tensor_type"_a, "to_dlpack"_a);
  m.def(
      "release_torch",
      [] {
        Py_CLEAR(currentStream);
        clearTorch();
      },
      "Drops the references set_torch and set_current_stream hold");
  m.def(
      "default_features",
      [](const std::string &chip) {
        std::vector<std::string> names;
        FailureOr<tile::TargetInfo> target = tile::TargetInfo::parse(chip);
        if (succeeded(target))
          for (StringRef name : target->getFeatureNames())
            names.push_back(name.str());
        return names;
      },
      "chip"_a,
      "The features a chip's #tile.target has by default (none for an "
      "unknown chip)");
  m.def("default_cache_dir", &jit::DiskCache::getDefaultDirectory);
  m.def("clear_cache", [](const std::string &dir) {
    return jit::DiskCache(dir).clear();
  });
}
