/*===- tile-capi-test.c - The C API, end to end ----------------------------===*
 *
 * Part of the tile project.
 *
 *===----------------------------------------------------------------------===*
 * A C program over libTileC: registers tile, builds and queries layout
 * attributes, runs tile's passes on examples/gemm.mlir and reads the layouts
 * inference chose, then JIT-compiles examples/elementwise_add.mlir for the
 * CPU with a disk cache and calls it, checking the sums here. Prints what
 * capi.test checks.
 *
 *   tile-capi-test GEMM.mlir ADD.mlir CACHE-DIR
 *===----------------------------------------------------------------------===*/

// FileCheck lines are long: keep clang-format from breaking them.
// clang-format off

#include "tile-c/Dialects.h"
#include "tile-c/JIT.h"
#include "tile-c/Layouts.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStdout(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stdout);
}

static void countLength(MlirStringRef text, void *userData) {
  *(size_t *)userData += text.length;
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  printf("diagnostic: ");
  mlirDiagnosticPrint(diagnostic, printToStdout, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  fseek(file, 0, SEEK_SET);
  char *text = malloc(size + 1);
  if (fread(text, 1, size, file) != (size_t)size) {
    free(text);
    fclose(file);
    return NULL;
  }
  text[size] = 0;
  fclose(file);
  return text;
}

static MlirModule parseFile(MlirContext ctx, const char *path) {
  char *text = readFile(path);
  if (!text) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "cannot parse %s\n", path);
    exit(2);
  }
  return module;
}

static void printLayout(const char *what, TileLayout layout) {
  printf("%s: ", what);
  tileLayoutPrint(layout, printToStdout, NULL);
  printf("\n");
}

/*===----------------------------------------------------------------------===*/
/* Registration                                                               */
/*===----------------------------------------------------------------------===*/

static void testRegistration(MlirContext ctx) {
  /* The dialect handle, upstream's way, gives the dialect the registry
   * already has. */
  MlirDialect tile =
      mlirContextGetOrLoadDialect(ctx, mlirStringRefCreateFromCString("tile"));
  MlirDialect fromHandle =
      mlirDialectHandleLoadDialect(mlirGetDialectHandle__tile__(), ctx);
  MlirStringRef namespace = mlirDialectGetNamespace(fromHandle);
  // CHECK: dialect tile loaded: 1, same: 1
  printf("dialect %.*s loaded: %d, same: %d\n", (int)namespace.length,
         namespace.data, !mlirDialectIsNull(tile),
         mlirDialectEqual(tile, fromHandle));
  /* Passes register once, however often asked. */
  tileRegisterPasses();
  tileRegisterPasses();
}

/*===----------------------------------------------------------------------===*/
/* Layouts                                                                    */
/*===----------------------------------------------------------------------===*/

static void testLayouts(MlirContext ctx) {
  MlirType f16 = mlirF16TypeGet(ctx);
  MlirType f32 = mlirF32TypeGet(ctx);

  MlirAttribute linear = tileLinearLayoutAttrGet(ctx);
  MlirAttribute padded = tilePaddedLayoutAttrGet(ctx, 8);
  MlirAttribute swizzle = tileSwizzleLayoutAttrGet(ctx, 128);
  // CHECK-LABEL: layouts
  printf("layouts\n");
  // CHECK: #tile.linear #tile.padded<8> #tile.swizzle<128>
  mlirAttributePrint(linear, printToStdout, NULL);
  printf(" ");
  mlirAttributePrint(padded, printToStdout, NULL);
  printf(" ");
  mlirAttributePrint(swizzle, printToStdout, NULL);
  printf("\n");
  // CHECK: padding 8, mode 128, kinds 1 1 1 0
  printf("padding %d, mode %d, kinds %d %d %d %d\n",
         (int)tilePaddedLayoutAttrGetPadding(padded),
         (int)tileSwizzleLayoutAttrGetMode(swizzle),
         tileAttributeIsALinearLayout(linear),
         tileAttributeIsAPaddedLayout(padded),
         tileAttributeIsASwizzleLayout(swizzle),
         tileAttributeIsAFragmentLayout(swizzle));

  /* A padded 4x6 buffer: row r starts at r * (6 + 8). */
  int64_t shape[2] = {4, 6};
  TileLayout paddedLayout = tileLayoutAttrGetLayout(padded, 2, shape, f32);
  int64_t index[3] = {3, 5, 0}, result[2] = {-1, -1}, extents[2];
  mlirLogicalResultIsSuccess(tileLayoutApply(paddedLayout, index, result));
  tileLayoutGetOutExtents(paddedLayout, extents);
  // CHECK: padded [3, 5] -> 47, spans 48, injective 1, bijective 0
  printf("padded [3, 5] -> %d, spans %d, injective %d, bijective %d\n",
         (int)result[0], (int)extents[0], tileLayoutIsInjective(paddedLayout),
         tileLayoutIsBijective(paddedLayout));
  /* An index outside the buffer fails. */
  index[0] = 4;
  // CHECK: padded [4, 5]: failure
  printf("padded [4, 5]: %s\n", mlirLogicalResultIsFailure(tileLayoutApply(
                                    paddedLayout, index, result))
                                    ? "failure"
                                    : "success");
  tileLayoutDestroy(paddedLayout);

  /* 128-byte swizzle on f16: rows of 64 elements, 16-byte chunks (8
   * elements) XOR-ed with the row modulo 8. Element [1, 0] moves to chunk
   * 1 of row 1: offset 64 + 8. */
  int64_t swizzleShape[2] = {8, 64};
  TileLayout swizzled = tileLayoutAttrGetLayout(swizzle, 2, swizzleShape, f16);
  int64_t swizzleIndex[2] = {1, 0};
  tileLayoutApply(swizzled, swizzleIndex, result);
  // CHECK: swizzle [1, 0] -> 72, bijective 1
  printf("swizzle [1, 0] -> %d, bijective %d\n", (int)result[0],
         tileLayoutIsBijective(swizzled));
  tileLayoutDestroy(swizzled);

  /* The f32 accumulator of mma.sync m16n8k16: thread 4 * (row % 8) +
   * (col / 2) % 4, slot 2 * (row / 8) + col % 2. */
  TileLayoutFactor factors[4] = {{2, 2, TILE_FRAGMENT_SLOT},
                                 {8, 4, TILE_FRAGMENT_THREAD},
                                 {4, 1, TILE_FRAGMENT_THREAD},
                                 {2, 1, TILE_FRAGMENT_SLOT}};
  intptr_t perDim[2] = {2, 2};
  MlirAttribute accumulator =
      tileFragmentLayoutAttrGet(ctx, 2, perDim, factors, 0, NULL);
  // CHECK: #tile.fragment<{{\[\[}}2:s2, 8:t4], [4:t1, 2:s1]]>
  mlirAttributePrint(accumulator, printToStdout, NULL);
  printf("\n");
  // CHECK: fragment 16x8: 32 threads, 4 slots, 1 copies, is fragment 1
  printf("fragment %dx%d: %d threads, %d slots, %d copies, is fragment %d\n",
         (int)tileFragmentLayoutAttrGetDimSize(accumulator, 0),
         (int)tileFragmentLayoutAttrGetDimSize(accumulator, 1),
         (int)tileFragmentLayoutAttrGetThreadExtent(accumulator),
         (int)tileFragmentLayoutAttrGetSlotExtent(accumulator),
         (int)tileFragmentLayoutAttrGetNumReplicas(accumulator),
         tileLayoutAttrIsFragment(accumulator));
  int64_t fragmentShape[2] = {16, 8};
  TileLayout fragment =
      tileLayoutAttrGetLayout(accumulator, 2, fragmentShape, f32);
  int64_t element[3] = {9, 3, 0};
  tileLayoutApply(fragment, element, result);
  // CHECK: [9, 3] -> thread 5, slot 3 (in rank 3, out rank 2)
  printf("[9, 3] -> thread %d, slot %d (in rank %d, out rank %d)\n",
         (int)result[0], (int)result[1], (int)tileLayoutGetInRank(fragment),
         (int)tileLayoutGetOutRank(fragment));
  tileLayoutDestroy(fragment);

  /* Two copies of a 4-element row, the copy on thread + 4. */
  TileLayoutFactor row[1] = {{4, 1, TILE_FRAGMENT_THREAD}};
  TileLayoutFactor copies[1] = {{2, 4, TILE_FRAGMENT_THREAD}};
  intptr_t one = 1;
  MlirAttribute replicated =
      tileFragmentLayoutAttrGet(ctx, 1, &one, row, 1, copies);
  // CHECK: #tile.fragment<{{\[\[}}4:t1]], replicate [2:t4]> copies 2
  mlirAttributePrint(replicated, printToStdout, NULL);
  printf(" copies %d\n", (int)tileFragmentLayoutAttrGetNumReplicas(replicated));

  /* A shared layout as explicit factors: two 64-column panels. */
  TileLayoutFactor panels[3] = {{128, 64, 0}, {2, 8192, 0}, {64, 1, 0}};
  intptr_t panelDims[2] = {1, 2};
  MlirAttribute shared =
      tileSharedLayoutAttrGet(ctx, 2, panelDims, panels, 128);
  // CHECK: #tile.shared<{{\[\[}}128:64], [2:8192, 64:1]], swizzle 128> shared 1
  mlirAttributePrint(shared, printToStdout, NULL);
  printf(" shared %d\n", tileAttributeIsASharedLayout(shared));

  /* Invalid parameters: the dialect's diagnostic, and a null attribute. */
  // CHECK: diagnostic: swizzle mode must be 32, 64 or 128 bytes, got 48
  // CHECK-NEXT: swizzle<48> is null: 1
  printf("swizzle<48> is null: %d\n",
         mlirAttributeIsNull(tileSwizzleLayoutAttrGet(ctx, 48)));
  // CHECK: diagnostic: fragment layout maps element [0] and element [1] to the same thread 0, slot 0
  TileLayoutFactor clash[1] = {{2, 0, TILE_FRAGMENT_THREAD}};
  printf("clash is null: %d\n", mlirAttributeIsNull(tileFragmentLayoutAttrGet(
                                    ctx, 1, &one, clash, 0, NULL)));
  // CHECK: diagnostic: fragment layout factors map to a thread (0) or a slot (1), got axis 2
  TileLayoutFactor badAxis[1] = {{2, 1, 2}};
  printf("bad axis is null: %d\n",
         mlirAttributeIsNull(
             tileFragmentLayoutAttrGet(ctx, 1, &one, badAxis, 0, NULL)));
  // CHECK: diagnostic: shared layout factors map to the offset (0), got axis 1
  int64_t wrongShapeOf16[2] = {16, 16};
  TileLayoutFactor sharedAxis[1] = {{4, 1, 1}};
  printf("shared axis is null: %d\n",
         mlirAttributeIsNull(
             tileSharedLayoutAttrGet(ctx, 1, &one, sharedAxis, 0)));
  /* Not a layout: a null TileLayout, no diagnostic. */
  // CHECK: not a layout: 1
  printf("not a layout: %d\n",
         tileLayoutIsNull(tileLayoutAttrGetLayout(
             mlirUnitAttrGet(ctx), 2, wrongShapeOf16, f32)));
  // CHECK: diagnostic: fragment layout covers shape [16, 8] but the buffer has shape [8, 8]
  // CHECK-NEXT: wrong shape is null: 1
  int64_t wrongShape[2] = {8, 8};
  printf("wrong shape is null: %d\n", tileLayoutIsNull(tileLayoutAttrGetLayout(
                                          accumulator, 2, wrongShape, f32)));
}

/*===----------------------------------------------------------------------===*/
/* Passes                                                                     */
/*===----------------------------------------------------------------------===*/

static MlirWalkResult printFragmentLayouts(MlirOperation op, void *userData) {
  MlirIdentifier name = mlirOperationGetName(op);
  if (!mlirStringRefEqual(mlirIdentifierStr(name),
                          mlirStringRefCreateFromCString("tile.fragment")))
    return MlirWalkResultAdvance;
  MlirAttribute layout = mlirOperationGetAttributeByName(
      op, mlirStringRefCreateFromCString("layout"));
  MlirType type = mlirValueGetType(mlirOperationGetResult(op, 0));
  int64_t shape[2] = {mlirShapedTypeGetDimSize(type, 0),
                      mlirShapedTypeGetDimSize(type, 1)};
  TileLayout fragment = tileLayoutAttrGetLayout(
      layout, 2, shape, mlirShapedTypeGetElementType(type));
  if (tileLayoutIsNull(fragment)) {
    printf("a %dx%d fragment without a layout\n", (int)shape[0],
           (int)shape[1]);
    return MlirWalkResultAdvance;
  }
  int64_t extents[2];
  tileLayoutGetOutExtents(fragment, extents);
  printf("inferred %dx%d fragment: %d threads x %d slots, injective %d\n",
         (int)shape[0], (int)shape[1], (int)extents[0], (int)extents[1],
         tileLayoutIsInjective(fragment));
  printLayout("as a layout", fragment);
  tileLayoutDestroy(fragment);
  ++*(int *)userData;
  return MlirWalkResultAdvance;
}

static int runPipeline(MlirContext ctx, MlirModule module,
                       const char *pipeline) {
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult parsed = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString(pipeline), printToStdout, NULL);
  int ok = mlirLogicalResultIsSuccess(parsed) &&
           mlirLogicalResultIsSuccess(
               mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)));
  mlirPassManagerDestroy(pm);
  return ok;
}

static void testPasses(MlirContext ctx, const char *gemmPath) {
  // CHECK-LABEL: passes
  printf("passes\n");
  MlirModule gemm = parseFile(ctx, gemmPath);
  // CHECK: tile-infer-layouts: 1
  printf("tile-infer-layouts: %d\n",
         runPipeline(ctx, gemm,
                     "builtin.module(tile-attach-target{chip=sm_80},"
                     "tile-infer-layouts)"));
  int fragments = 0;
  mlirOperationWalk(mlirModuleGetOperation(gemm), printFragmentLayouts,
                    &fragments, MlirWalkPreOrder);
  // CHECK: inferred 128x128 fragment: 128 threads x 128 slots, injective 1
  // CHECK-NEXT: as a layout: {{.+}}
  // CHECK: tile-to-cpu: 1
  printf("tile-to-cpu: %d\n",
         runPipeline(ctx, gemm, "builtin.module(tile-to-cpu)"));
  /* The result is LLVM dialect only. */
  // CHECK: llvm.func @gemm
  // CHECK-NOT: {{ }}tile.
  // CHECK-LABEL: end of passes
  mlirOperationPrint(mlirModuleGetOperation(gemm), printToStdout, NULL);
  printf("\nend of passes\n");
  mlirModuleDestroy(gemm);
}

/*===----------------------------------------------------------------------===*/
/* The JIT                                                                    */
/*===----------------------------------------------------------------------===*/

static int check(MlirLogicalResult result, const char *what) {
  if (mlirLogicalResultIsSuccess(result))
    return 1;
  MlirStringRef error = tileJitGetLastError();
  printf("%s failed: %.*s\n", what, (int)error.length, error.data);
  return 0;
}

static const char *cacheResultName(TileJitCacheResult result) {
  switch (result) {
  case TILE_JIT_COMPILED:
    return "compiled";
  case TILE_JIT_MEMORY_HIT:
    return "memory hit";
  case TILE_JIT_DISK_HIT:
    return "disk hit";
  }
  return "?";
}

static void testJit(MlirContext ctx, const char *addPath,
                    const char *cacheDir) {
  // CHECK-LABEL: jit
  printf("jit\n");
  MlirModule add = parseFile(ctx, addPath);
  TileJitDevice device =
      tileJitDeviceSelect(mlirStringRefCreateFromCString("cpu"),
                          mlirStringRefCreate(NULL, 0), false);
  // CHECK: device: cpu, target 0
  printf("device: ");
  tileJitDeviceGetDescription(device, printToStdout, NULL);
  printf(", target %d\n", (int)tileJitDeviceGetTarget(device));

  TileJitCompileOptions options = tileJitCompileOptionsGetDefault();
  // CHECK: defaults: O3, warp-specialize 1, tma-store 1, tma-multicast 0, deepen-pipelines 1, raster-blocks 1, merge-blocks 1
  printf("defaults: O%u, warp-specialize %d, tma-store %d, tma-multicast %d, "
         "deepen-pipelines %d, raster-blocks %d, merge-blocks %d\n",
         options.optLevel, options.warpSpecialize, options.tmaStore,
         options.tmaMulticast, options.deepenPipelines, options.rasterBlocks,
         options.mergeBlocks);
  options.optLevel = 2;
  options.cacheDir = mlirStringRefCreateFromCString(cacheDir);
  TileJitCompiler compiler = tileJitCompilerCreate(device, options);
  size_t keyLength = 0;
  tileJitCompilerGetCacheKey(compiler, add, countLength, &keyLength);
  TileJitCacheResult cache;
  TileJitExecutable executable = tileJitCompilerCompile(compiler, add, &cache);
  // CHECK: compiled: compiled, key of 64 characters
  printf("compiled: %s, key of %d characters\n", cacheResultName(cache),
         (int)keyLength);
  tileJitExecutableDestroy(tileJitCompilerCompile(compiler, add, &cache));
  // CHECK-NEXT: again: memory hit
  printf("again: %s\n", cacheResultName(cache));
  TileJitCompiler fresh = tileJitCompilerCreate(device, options);
  tileJitExecutableDestroy(tileJitCompilerCompile(fresh, add, &cache));
  // CHECK-NEXT: fresh compiler: disk hit
  printf("fresh compiler: %s\n", cacheResultName(cache));
  tileJitCompilerDestroy(fresh);

  TileJitKernel kernel = tileJitKernelGet(
      executable, mlirStringRefCreateFromCString("add"), device);
  // CHECK: @add takes 3 arguments
  printf("@add takes %d arguments\n",
         (int)tileJitKernelGetNumArguments(kernel));

  MlirStringRef error;
  /* 37 x 133: not a multiple of the 32 x 128 tile. */
  enum { M = 37, N = 133 };
  float *a = tileJitDeviceAllocate(device, M * N * sizeof(float));
  float *b = tileJitDeviceAllocate(device, M * N * sizeof(float));
  float *c = tileJitDeviceAllocate(device, M * N * sizeof(float));
  float *host = malloc(M * N * sizeof(float));
  for (int i = 0; i < M * N; ++i)
    host[i] = (float)(i % 101) * 0.5f;
  check(tileJitDeviceCopyToDevice(device, a, host, M * N * sizeof(float)),
        "copy");
  for (int i = 0; i < M * N; ++i)
    host[i] = (float)(i % 7) - 3.0f;
  check(tileJitDeviceCopyToDevice(device, b, host, M * N * sizeof(float)),
        "copy");
  memset(c, 0, M * N * sizeof(float));

  TileJitArguments args = tileJitArgumentsCreate(kernel);
  int64_t sizes[2] = {M, N};
  int ok =
      check(tileJitArgumentsSetMemRef(args, 0, a, TILE_JIT_F32, 2, sizes, NULL),
            "argument 0") &&
      check(tileJitArgumentsSetMemRef(args, 1, b, TILE_JIT_F32, 2, sizes, NULL),
            "argument 1") &&
      check(tileJitArgumentsSetMemRef(args, 2, c, TILE_JIT_F32, 2, sizes, NULL),
            "argument 2") &&
      check(tileJitKernelCall(kernel, args), "call");
  check(tileJitDeviceCopyToHost(device, host, c, M * N * sizeof(float)),
        "copy back");
  int wrong = 0;
  for (int i = 0; i < M * N; ++i)
    wrong += host[i] != (float)(i % 101) * 0.5f + (float)(i % 7) - 3.0f;
  // CHECK: call: 1, 0 wrong sums of 4921
  printf("call: %d, %d wrong sums of %d\n", ok, wrong, M * N);

  /* The same arguments through the packed entry point. */
  memset(c, 0, M * N * sizeof(float));
  ok = check(tileJitKernelCallPacked(kernel, tileJitArgumentsGetPacked(args)),
             "packed call");
  wrong = 0;
  for (int i = 0; i < M * N; ++i)
    wrong += c[i] != (float)(i % 101) * 0.5f + (float)(i % 7) - 3.0f;
  // CHECK: packed call: 1, 0 wrong sums
  printf("packed call: %d, %d wrong sums\n", ok, wrong);

  /* Refused arguments, options and unknown functions say why. */
  // CHECK: argument 0 failed: unknown element type 99
  check(tileJitArgumentsSetMemRef(args, 0, a, (TileJitElementType)99, 2, sizes,
                                  NULL),
        "argument 0");
  TileJitCompileOptions tooHigh = options;
  tooHigh.optLevel = 4;
  TileJitCompiler refused = tileJitCompilerCreate(device, tooHigh);
  error = tileJitGetLastError();
  // CHECK: -O4: null 1: the optimization level must be 0 to 3, got 4
  printf("-O4: null %d: %.*s\n", refused.ptr == NULL, (int)error.length,
         error.data);
  // CHECK: argument 0 failed: argument #0 (memref<?x?xf32>): element type f16 does not match the parameter's f32
  check(tileJitArgumentsSetMemRef(args, 0, a, TILE_JIT_F16, 2, sizes, NULL),
        "argument 0");
  // CHECK: argument 1 failed: argument #1 (memref<?x?xf32>): rank 1 does not match the parameter's rank 2
  check(tileJitArgumentsSetMemRef(args, 1, b, TILE_JIT_F32, 1, sizes, NULL),
        "argument 1");
  int64_t strides[2] = {1, M};
  // CHECK: argument 2 failed: argument #2 (memref<?x?xf32>): strides [1, 37] are not row-major; the parameter's layout is the identity
  check(tileJitArgumentsSetMemRef(args, 2, c, TILE_JIT_F32, 2, sizes, strides),
        "argument 2");
  // CHECK: argument 2 failed: argument #2 (memref<?x?xf32>): expects an array, got a scalar
  check(tileJitArgumentsSetInteger(args, 2, 7), "argument 2");
  TileJitKernel missing = tileJitKernelGet(
      executable, mlirStringRefCreateFromCString("sub"), device);
  error = tileJitGetLastError();
  // CHECK: @sub: null 1: no public function @sub in the compiled module
  printf("@sub: null %d: %.*s\n", missing.ptr == NULL, (int)error.length,
         error.data);
  TileJitDevice tpu = tileJitDeviceSelect(mlirStringRefCreateFromCString("tpu"),
                                          mlirStringRefCreate(NULL, 0), false);
  error = tileJitGetLastError();
  // CHECK: tpu: null 1: unknown target 'tpu' (expected auto, cuda, rocm or cpu)
  printf("tpu: null %d: %.*s\n", tpu.ptr == NULL, (int)error.length,
         error.data);

  /* A module the CPU cannot run (a GPU thread id): the reason. */
  MlirModule bad = mlirModuleCreateParse(
      ctx, mlirStringRefCreateFromCString(
               "func.func @f(%a: memref<4xindex>) {\n"
               "  %t = gpu.thread_id x\n"
               "  %c0 = arith.constant 0 : index\n"
               "  memref.store %t, %a[%c0] : memref<4xindex>\n"
               "  return\n"
               "}\n"));
  // CHECK: diagnostic: unsupported GPU operation: gpu.thread_id
  TileJitExecutable none = tileJitCompilerCompile(compiler, bad, NULL);
  error = tileJitGetLastError();
  // CHECK: bad module: null 1: compiling the module failed: unsupported GPU operation: gpu.thread_id
  printf("bad module: null %d: %.*s\n", none.ptr == NULL, (int)error.length,
         error.data);
  mlirModuleDestroy(bad);

  tileJitArgumentsDestroy(args);
  tileJitKernelDestroy(kernel);
  tileJitExecutableDestroy(executable);
  tileJitCompilerDestroy(compiler);
  tileJitDeviceFree(device, a);
  tileJitDeviceFree(device, b);
  tileJitDeviceFree(device, c);
  tileJitDeviceDestroy(device);
  free(host);
  mlirModuleDestroy(add);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: tile-capi-test GEMM.mlir ADD.mlir CACHE-DIR\n");
    return 2;
  }
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tileRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, printDiagnostic, NULL, NULL);
  testRegistration(ctx);
  testLayouts(ctx);
  testPasses(ctx, argv[1]);
  testJit(ctx, argv[2], argv[3]);

  mlirContextDestroy(ctx);
  // CHECK: done
  printf("done\n");
  return 0;
}
