/* capi-example: C = A + B through tile's C API, on the CPU.
 *
 *   capi-example elementwise_add.mlir */

#include "tile-c/Dialects.h"
#include "tile-c/JIT.h"

#include <stdio.h>
#include <stdlib.h>

static char *readFile(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long size = ftell(file);
  rewind(file);
  char *text = calloc(size + 1, 1);
  if (fread(text, 1, size, file) != (size_t)size)
    text[0] = 0;
  fclose(file);
  return text;
}

static int fail(const char *what) {
  MlirStringRef why = tileJitGetLastError();
  fprintf(stderr, "%s: %.*s\n", what, (int)why.length, why.data);
  return 1;
}

int main(int argc, char **argv) {
  char *text = argc == 2 ? readFile(argv[1]) : NULL;
  if (!text)
    return 2;
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  tileRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  MlirModule module =
      mlirModuleCreateParse(ctx, mlirStringRefCreateFromCString(text));
  free(text);
  if (mlirModuleIsNull(module))
    return 2;

  TileJitDevice cpu = tileJitDeviceSelect(mlirStringRefCreateFromCString("cpu"),
                                          mlirStringRefCreate(NULL, 0), false);
  TileJitCompileOptions options = tileJitCompileOptionsGetDefault();
  options.cacheDir = mlirStringRefCreate(NULL, 0); /* no disk cache */
  TileJitCompiler compiler = tileJitCompilerCreate(cpu, options);
  TileJitExecutable executable = tileJitCompilerCompile(compiler, module, NULL);
  if (!executable.ptr)
    return fail("compile");
  TileJitKernel add =
      tileJitKernelGet(executable, mlirStringRefCreateFromCString("add"), cpu);
  if (!add.ptr)
    return fail("lookup");

  float a[3][5], b[3][5], c[3][5];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 5; ++j) {
      a[i][j] = (float)(10 * i);
      b[i][j] = (float)j;
    }
  int64_t sizes[2] = {3, 5};
  TileJitArguments args = tileJitArgumentsCreate(add);
  if (mlirLogicalResultIsFailure(tileJitArgumentsSetMemRef(
          args, 0, a, TILE_JIT_F32, 2, sizes, NULL)) ||
      mlirLogicalResultIsFailure(tileJitArgumentsSetMemRef(
          args, 1, b, TILE_JIT_F32, 2, sizes, NULL)) ||
      mlirLogicalResultIsFailure(tileJitArgumentsSetMemRef(
          args, 2, c, TILE_JIT_F32, 2, sizes, NULL)) ||
      mlirLogicalResultIsFailure(tileJitKernelCall(add, args)))
    return fail("call");
  for (int i = 0; i < 3; ++i)
    printf("%g %g %g %g %g\n", c[i][0], c[i][1], c[i][2], c[i][3], c[i][4]);

  tileJitArgumentsDestroy(args);
  tileJitKernelDestroy(add);
  tileJitExecutableDestroy(executable);
  tileJitCompilerDestroy(compiler);
  tileJitDeviceDestroy(cpu);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
