//===- JIT.cpp - C API: compile, cache and call tile programs -------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile-c/JIT.h"

#include "tile/JIT/Device.h"
#include "tile/JIT/Kernel.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/CAPI/Utils.h"
#include "mlir/IR/Diagnostics.h"

#include <cstring>
#include <type_traits>

using namespace mlir;
using namespace mlir::tile;

static_assert(int(jit::ElementType::Index) == TILE_JIT_INDEX &&
                  int(jit::ElementType::F8E5M2) == TILE_JIT_F8E5M2 &&
                  int(jit::ElementType::I1) == TILE_JIT_I1 &&
                  int(jit::ElementType::F8E5M2FNUZ) == TILE_JIT_F8E5M2FNUZ,
              "TileJitElementType follows jit::ElementType");
static_assert(int(jit::Target::AMD) == TILE_JIT_TARGET_ROCM &&
                  int(jit::CacheResult::DiskHit) == TILE_JIT_DISK_HIT,
              "the C enums follow the C++ ones");

namespace {
thread_local std::string lastError;

/// Records why a call failed; returns `result` for convenience.
template <typename T> T failWith(std::string message, T result) {
  lastError = std::move(message);
  return result;
}

MlirLogicalResult fromResult(LogicalResult result) {
  return succeeded(result) ? mlirLogicalResultSuccess()
                           : mlirLogicalResultFailure();
}

jit::Device *unwrapDevice(TileJitDevice device) {
  return static_cast<jit::Device *>(device.ptr);
}
jit::Compiler &unwrapCompiler(TileJitCompiler compiler) {
  return *static_cast<jit::Compiler *>(compiler.ptr);
}
std::shared_ptr<jit::Executable> &unwrapExecutable(TileJitExecutable handle) {
  return *static_cast<std::shared_ptr<jit::Executable> *>(handle.ptr);
}
jit::Kernel &unwrapKernel(TileJitKernel kernel) {
  return *static_cast<jit::Kernel *>(kernel.ptr);
}
jit::PackedArguments &unwrapArguments(TileJitArguments arguments) {
  return *static_cast<jit::PackedArguments *>(arguments.ptr);
}

/// Keeps `error` as the last error when `result` failed.
MlirLogicalResult fromResult(LogicalResult result, std::string &error) {
  if (failed(result))
    lastError = std::move(error);
  return fromResult(result);
}

/// Fails with the device's last error when `result` failed.
MlirLogicalResult deviceResult(jit::Device &device, LogicalResult result) {
  if (failed(result))
    lastError = device.getLastError();
  return fromResult(result);
}
} // namespace

MlirStringRef tileJitGetLastError(void) {
  return mlirStringRefCreate(lastError.data(), lastError.size());
}

//===----------------------------------------------------------------------===//
// Devices
//===----------------------------------------------------------------------===//

TileJitDevice tileJitDeviceSelect(MlirStringRef target, MlirStringRef chip,
                                  bool allowOffline) {
  std::string error;
  FailureOr<std::unique_ptr<jit::Device>> device =
      jit::selectDevice(unwrap(target), unwrap(chip), allowOffline, error);
  if (failed(device))
    return failWith(error, TileJitDevice{nullptr});
  return {device->release()};
}

void tileJitDeviceDestroy(TileJitDevice device) { delete unwrapDevice(device); }

// The C enum names the vendors in jit::Target's order.
static_assert(static_cast<int>(jit::Target::CPU) == TILE_JIT_TARGET_CPU &&
              static_cast<int>(jit::Target::NVIDIA) == TILE_JIT_TARGET_CUDA &&
              static_cast<int>(jit::Target::AMD) == TILE_JIT_TARGET_ROCM);

TileJitTarget tileJitDeviceGetTarget(TileJitDevice device) {
  return static_cast<TileJitTarget>(unwrapDevice(device)->getTarget());
}

MlirStringRef tileJitDeviceGetChip(TileJitDevice device) {
  const std::string &chip = unwrapDevice(device)->getChip();
  return mlirStringRefCreate(chip.data(), chip.size());
}

void tileJitDeviceGetDescription(TileJitDevice device,
                                 MlirStringCallback callback, void *userData) {
  std::string description = unwrapDevice(device)->getDescription();
  callback(mlirStringRefCreate(description.data(), description.size()),
           userData);
}

void *tileJitDeviceAllocate(TileJitDevice device, size_t bytes) {
  jit::Device *d = unwrapDevice(device);
  void *pointer = d->allocate(bytes);
  if (!pointer)
    lastError = d->getLastError();
  return pointer;
}

void tileJitDeviceFree(TileJitDevice device, void *pointer) {
  unwrapDevice(device)->free(pointer);
}

MlirLogicalResult tileJitDeviceCopyToDevice(TileJitDevice device, void *dst,
                                            const void *src, size_t bytes) {
  jit::Device &d = *unwrapDevice(device);
  return deviceResult(d, d.copyToDevice(dst, src, bytes));
}

MlirLogicalResult tileJitDeviceCopyToHost(TileJitDevice device, void *dst,
                                          const void *src, size_t bytes) {
  jit::Device &d = *unwrapDevice(device);
  return deviceResult(d, d.copyToHost(dst, src, bytes));
}

MlirLogicalResult tileJitDeviceSynchronize(TileJitDevice device) {
  jit::Device &d = *unwrapDevice(device);
  return deviceResult(d, d.synchronize());
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

TileJitCompileOptions tileJitCompileOptionsGetDefault(void) {
  static const std::string directory = jit::DiskCache::getDefaultDirectory();
  jit::CompileOptions defaults;
  return {3,
          mlirStringRefCreate(directory.data(), directory.size()),
          defaults.codegen.warpSpecialize,
          defaults.codegen.tmaStore,
          defaults.codegen.tmaMulticast,
          defaults.codegen.deepenPipelines,
          defaults.codegen.rasterBlocks,
          defaults.codegen.mergeBlocks};
}

TileJitCompiler tileJitCompilerCreate(TileJitDevice device,
                                      TileJitCompileOptions options) {
  jit::Device &d = *unwrapDevice(device);
  if (options.optLevel > 3)
    return failWith("the optimization level must be 0 to 3, got " +
                        std::to_string(options.optLevel),
                    TileJitCompiler{nullptr});
  jit::CompileOptions compileOptions = d.getCompileOptions();
  compileOptions.optLevel = options.optLevel;
  compileOptions.cacheDir = unwrap(options.cacheDir).str();
  compileOptions.codegen.warpSpecialize = options.warpSpecialize;
  compileOptions.codegen.tmaStore = options.tmaStore;
  compileOptions.codegen.tmaMulticast = options.tmaMulticast;
  compileOptions.codegen.deepenPipelines = options.deepenPipelines;
  compileOptions.codegen.rasterBlocks = options.rasterBlocks;
  compileOptions.codegen.mergeBlocks = options.mergeBlocks;
  // A device that cannot run code only compiles into the cache.
  compileOptions.initialize = d.canRun();
  return {new jit::Compiler(std::move(compileOptions), d.getRuntimeSymbols())};
}

void tileJitCompilerDestroy(TileJitCompiler compiler) {
  delete &unwrapCompiler(compiler);
}

TileJitExecutable tileJitCompilerCompile(TileJitCompiler compiler,
                                         MlirModule module,
                                         TileJitCacheResult *cacheResult) {
  ModuleOp moduleOp = unwrap(module);
  // Keep the diagnostics' text for tileJitGetLastError, and let them go on
  // to the context's handlers.
  std::string diagnostics;
  ScopedDiagnosticHandler handler(moduleOp.getContext(), [&](Diagnostic &d) {
    if (d.getSeverity() == DiagnosticSeverity::Error)
      diagnostics += (diagnostics.empty() ? "" : "\n") + d.str();
    return failure();
  });
  jit::CompileReport report;
  FailureOr<std::shared_ptr<jit::Executable>> executable =
      unwrapCompiler(compiler).compile(moduleOp, &report);
  if (failed(executable))
    return failWith("compiling the module failed" +
                        (diagnostics.empty() ? "" : ": " + diagnostics),
                    TileJitExecutable{nullptr});
  if (cacheResult)
    *cacheResult = static_cast<TileJitCacheResult>(report.cache);
  return {new std::shared_ptr<jit::Executable>(std::move(*executable))};
}

void tileJitCompilerGetCacheKey(TileJitCompiler compiler, MlirModule module,
                                MlirStringCallback callback, void *userData) {
  std::string key = unwrapCompiler(compiler).getKey(unwrap(module));
  callback(mlirStringRefCreate(key.data(), key.size()), userData);
}

void tileJitExecutableDestroy(TileJitExecutable executable) {
  delete &unwrapExecutable(executable);
}

//===----------------------------------------------------------------------===//
// Calling
//===----------------------------------------------------------------------===//

TileJitKernel tileJitKernelGet(TileJitExecutable executable, MlirStringRef name,
                               TileJitDevice device) {
  std::string error;
  FailureOr<jit::Kernel> kernel =
      jit::Kernel::get(unwrapExecutable(executable), unwrap(name),
                       *unwrapDevice(device), &error);
  if (failed(kernel))
    return failWith(error, TileJitKernel{nullptr});
  return {new jit::Kernel(std::move(*kernel))};
}

void tileJitKernelDestroy(TileJitKernel kernel) {
  delete &unwrapKernel(kernel);
}

intptr_t tileJitKernelGetNumArguments(TileJitKernel kernel) {
  return unwrapKernel(kernel).getSignature().parameters.size();
}

void *tileJitKernelGetPackedFunction(TileJitKernel kernel) {
  return reinterpret_cast<void *>(unwrapKernel(kernel).getEntryPoint());
}

MlirLogicalResult tileJitKernelCallPacked(TileJitKernel kernel,
                                          void **packedArguments) {
  jit::Kernel &k = unwrapKernel(kernel);
  k.getEntryPoint()(packedArguments);
  return deviceResult(k.getDevice(), k.getDevice().synchronize());
}

TileJitArguments tileJitArgumentsCreate(TileJitKernel kernel) {
  return {new jit::PackedArguments(unwrapKernel(kernel).makeArguments())};
}

void tileJitArgumentsDestroy(TileJitArguments arguments) {
  delete &unwrapArguments(arguments);
}

MlirLogicalResult tileJitArgumentsSetMemRef(TileJitArguments arguments,
                                            intptr_t index, void *data,
                                            TileJitElementType elementType,
                                            intptr_t rank, const int64_t *sizes,
                                            const int64_t *strides) {
  // C callers may pass any int; reading it as the enum would be undefined
  // (UBSan's enum check), so read its bytes.
  std::underlying_type_t<TileJitElementType> raw;
  std::memcpy(&raw, &elementType, sizeof(raw));
  if (raw < TILE_JIT_F16 || raw > TILE_JIT_F8E5M2FNUZ)
    return failWith("unknown element type " + std::to_string(raw),
                    mlirLogicalResultFailure());
  std::string error;
  return fromResult(
      unwrapArguments(arguments).setMemRef(
          index, data, static_cast<jit::ElementType>(elementType),
          ArrayRef<int64_t>(sizes, rank),
          strides ? ArrayRef<int64_t>(strides, rank) : ArrayRef<int64_t>(),
          &error),
      error);
}

MlirLogicalResult tileJitArgumentsSetInteger(TileJitArguments arguments,
                                             intptr_t index, int64_t value) {
  std::string error;
  return fromResult(unwrapArguments(arguments).setInteger(index, value, &error),
                    error);
}

MlirLogicalResult tileJitArgumentsSetFloat(TileJitArguments arguments,
                                           intptr_t index, double value) {
  std::string error;
  return fromResult(unwrapArguments(arguments).setFloat(index, value, &error),
                    error);
}

void **tileJitArgumentsGetPacked(TileJitArguments arguments) {
  return unwrapArguments(arguments).data();
}

MlirLogicalResult tileJitKernelCall(TileJitKernel kernel,
                                    TileJitArguments arguments) {
  std::string error;
  return fromResult(
      unwrapKernel(kernel).call(unwrapArguments(arguments), &error), error);
}
