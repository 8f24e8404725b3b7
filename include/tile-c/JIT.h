/*===- JIT.h - C API: compile, cache and call tile programs -------*- C -*-===*
 *
 * Part of the tile project.
 *
 *===----------------------------------------------------------------------===*
 * The JIT library (include/tile/JIT) in C: pick a device, compile a module
 * for it (memoized in memory and in a disk cache), look up a function and call
 * it with arguments packed for MLIR's packed calling convention, checked
 * against the function's signature.
 *
 *   TileJitDevice device = tileJitDeviceSelect(
 *       mlirStringRefCreateFromCString("cpu"), mlirStringRefCreate(0, 0),
 *       false);
 *   TileJitCompiler compiler =
 *       tileJitCompilerCreate(device, tileJitCompileOptionsGetDefault());
 *   TileJitExecutable exe = tileJitCompilerCompile(compiler, module, NULL);
 *   TileJitKernel add = tileJitKernelGet(exe, name, device);
 *   TileJitArguments args = tileJitArgumentsCreate(add);
 *   tileJitArgumentsSetMemRef(args, 0, a, TILE_JIT_F32, 2, sizes, NULL);
 *   ...
 *   tileJitKernelCall(add, args);
 *
 * Functions returning a handle return a null one on failure, and functions
 * returning MlirLogicalResult fail; tileJitGetLastError() then says why (a
 * compile failure's diagnostics also go to the context's handlers).
 * Every handle is destroyed by its own ...Destroy function; a kernel keeps
 * its executable loaded, and must not outlive its device.
 *===----------------------------------------------------------------------===*/

#ifndef TILE_C_JIT_H
#define TILE_C_JIT_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TILE_DEFINE_C_API_STRUCT(name)                                         \
  typedef struct name {                                                        \
    void *ptr;                                                                 \
  } name

TILE_DEFINE_C_API_STRUCT(TileJitDevice);
TILE_DEFINE_C_API_STRUCT(TileJitCompiler);
TILE_DEFINE_C_API_STRUCT(TileJitExecutable);
TILE_DEFINE_C_API_STRUCT(TileJitKernel);
TILE_DEFINE_C_API_STRUCT(TileJitArguments);
#undef TILE_DEFINE_C_API_STRUCT

typedef enum TileJitTarget {
  TILE_JIT_TARGET_CPU,
  TILE_JIT_TARGET_CUDA,
  TILE_JIT_TARGET_ROCM
} TileJitTarget;

/* Element types of memref and scalar arguments (MLIR's, signless). */
typedef enum TileJitElementType {
  TILE_JIT_F16,
  TILE_JIT_BF16,
  TILE_JIT_F32,
  TILE_JIT_F64,
  TILE_JIT_F8E4M3FN,
  TILE_JIT_F8E5M2,
  TILE_JIT_I1,
  TILE_JIT_I8,
  TILE_JIT_I16,
  TILE_JIT_I32,
  TILE_JIT_I64,
  TILE_JIT_INDEX,
  /* AMD CDNA3's fp8 (appended: the values above keep their numbers). */
  TILE_JIT_F8E4M3FNUZ,
  TILE_JIT_F8E5M2FNUZ
} TileJitElementType;

/* Where a compiled module came from. */
typedef enum TileJitCacheResult {
  TILE_JIT_COMPILED,
  TILE_JIT_MEMORY_HIT,
  TILE_JIT_DISK_HIT
} TileJitCacheResult;

/* Why the last failing call on this thread failed. Valid until the next
 * failing call on this thread. */
MLIR_CAPI_EXPORTED MlirStringRef tileJitGetLastError(void);

/*===--------------------------------------------------------------------===*/
/* Devices                                                                */
/*===--------------------------------------------------------------------===*/

/* The device `target` names: "cpu", "cuda", "rocm" or "auto" (a CUDA GPU if
 * there is one, else the CPU); `chip` (may be empty) overrides the
 * detected GPU. With `allowOffline` and a chip, a GPU target without its
 * device gives a device that compiles only. */
MLIR_CAPI_EXPORTED TileJitDevice tileJitDeviceSelect(MlirStringRef target,
                                                     MlirStringRef chip,
                                                     bool allowOffline);
MLIR_CAPI_EXPORTED void tileJitDeviceDestroy(TileJitDevice device);
MLIR_CAPI_EXPORTED TileJitTarget tileJitDeviceGetTarget(TileJitDevice device);
/* The chip compiled for ("sm_90a"; empty on the CPU) and a description
 * ("cpu", "NVIDIA H200 (sm_90a)"). Valid while the device lives. */
MLIR_CAPI_EXPORTED MlirStringRef tileJitDeviceGetChip(TileJitDevice device);
MLIR_CAPI_EXPORTED void tileJitDeviceGetDescription(TileJitDevice device,
                                                    MlirStringCallback callback,
                                                    void *userData);
/* Device memory (host memory on the CPU); NULL on failure. */
MLIR_CAPI_EXPORTED void *tileJitDeviceAllocate(TileJitDevice device,
                                               size_t bytes);
MLIR_CAPI_EXPORTED void tileJitDeviceFree(TileJitDevice device, void *pointer);
MLIR_CAPI_EXPORTED MlirLogicalResult tileJitDeviceCopyToDevice(
    TileJitDevice device, void *dst, const void *src, size_t bytes);
MLIR_CAPI_EXPORTED MlirLogicalResult tileJitDeviceCopyToHost(
    TileJitDevice device, void *dst, const void *src, size_t bytes);
/* Waits for all work; fails with the first error since the last check. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tileJitDeviceSynchronize(TileJitDevice device);

/*===--------------------------------------------------------------------===*/
/* Compiling                                                              */
/*===--------------------------------------------------------------------===*/

typedef struct TileJitCompileOptions {
  /* LLVM optimization level of the host code, 0 to 3. */
  unsigned optLevel;
  /* The disk cache directory; empty: no disk cache. */
  MlirStringRef cacheDir;
  /* The GPU lowering's policies, where the chip has what each needs: TMA
   * pipelines' copies in a producer warpgroup; persistent kernels' stores
   * as TMA stores; cluster pairs sharing tiles by TMA multicast; pipelines
   * written with fewer than 4 stages deepened where that costs no
   * occupancy, and narrow K steps of GEMM loops merged (sm_90a); GEMM-shaped
   * kernels' blocks launched in panels that share tiles in L2; neighbouring
   * blocks of GEMM kernels merged into 256-wide tiles (sm_90a). */
  bool warpSpecialize;
  bool tmaStore;
  bool tmaMulticast;
  bool deepenPipelines;
  bool rasterBlocks;
  bool mergeBlocks;
} TileJitCompileOptions;

/* optLevel 3, the default cache directory ($TILE_CACHE_DIR, else
 * ~/.cache/tile; the string lives for the process), warpSpecialize,
 * tmaStore, deepenPipelines, rasterBlocks and mergeBlocks on, tmaMulticast
 * off. */
MLIR_CAPI_EXPORTED TileJitCompileOptions tileJitCompileOptionsGetDefault(void);

/* A compiler for `device`'s target and chip; it memoizes what it compiles. */
MLIR_CAPI_EXPORTED TileJitCompiler
tileJitCompilerCreate(TileJitDevice device, TileJitCompileOptions options);
MLIR_CAPI_EXPORTED void tileJitCompilerDestroy(TileJitCompiler compiler);

/* Compiles `module` (which must stay alive for the call only), or finds it
 * in memory or on disk, and loads it; `cacheResult` (may be NULL) says
 * which. The context must have tile's dialects (tileRegisterAllDialects). */
MLIR_CAPI_EXPORTED TileJitExecutable
tileJitCompilerCompile(TileJitCompiler compiler, MlirModule module,
                       TileJitCacheResult *cacheResult);
/* The cache key of `module` under this compiler's options (hex SHA-256). */
MLIR_CAPI_EXPORTED void tileJitCompilerGetCacheKey(TileJitCompiler compiler,
                                                   MlirModule module,
                                                   MlirStringCallback callback,
                                                   void *userData);
MLIR_CAPI_EXPORTED void tileJitExecutableDestroy(TileJitExecutable executable);

/*===--------------------------------------------------------------------===*/
/* Calling                                                                */
/*===--------------------------------------------------------------------===*/

/* Public function `name` of `executable`, to run on `device`. */
MLIR_CAPI_EXPORTED TileJitKernel tileJitKernelGet(TileJitExecutable executable,
                                                  MlirStringRef name,
                                                  TileJitDevice device);
MLIR_CAPI_EXPORTED void tileJitKernelDestroy(TileJitKernel kernel);
MLIR_CAPI_EXPORTED intptr_t tileJitKernelGetNumArguments(TileJitKernel kernel);
/* The packed entry point, void (*)(void **), for callers that pack their
 * own arguments (one pointer per LLVM-level argument; a memref descriptor
 * is allocated and aligned pointers, offset, sizes, strides). */
MLIR_CAPI_EXPORTED void *tileJitKernelGetPackedFunction(TileJitKernel kernel);
/* Calls with a caller-packed array, then waits and fails with the first
 * runtime error. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tileJitKernelCallPacked(TileJitKernel kernel, void **packedArguments);

/* Arguments laid out for `kernel`'s signature; set each, call, and reuse
 * across calls setting only what changes. */
MLIR_CAPI_EXPORTED TileJitArguments
tileJitArgumentsCreate(TileJitKernel kernel);
MLIR_CAPI_EXPORTED void tileJitArgumentsDestroy(TileJitArguments arguments);
/* Memref argument `index`: `data` points at its first element; `sizes`
 * and `strides` (in elements; NULL strides: row-major) have `rank` entries.
 * Fails, naming the argument, on a rank, static size, element type or
 * stride the parameter does not accept. */
MLIR_CAPI_EXPORTED MlirLogicalResult tileJitArgumentsSetMemRef(
    TileJitArguments arguments, intptr_t index, void *data,
    TileJitElementType elementType, intptr_t rank, const int64_t *sizes,
    const int64_t *strides);
/* Scalar argument `index`, converted to the parameter's type (a
 * floating-point value only for floating-point parameters). */
MLIR_CAPI_EXPORTED MlirLogicalResult tileJitArgumentsSetInteger(
    TileJitArguments arguments, intptr_t index, int64_t value);
MLIR_CAPI_EXPORTED MlirLogicalResult tileJitArgumentsSetFloat(
    TileJitArguments arguments, intptr_t index, double value);
MLIR_CAPI_EXPORTED void **tileJitArgumentsGetPacked(TileJitArguments arguments);

/* One call: waits (GPU calls are synchronous here) and fails with the
 * first runtime error. */
MLIR_CAPI_EXPORTED MlirLogicalResult
tileJitKernelCall(TileJitKernel kernel, TileJitArguments arguments);

#ifdef __cplusplus
}
#endif

#endif /* TILE_C_JIT_H */
