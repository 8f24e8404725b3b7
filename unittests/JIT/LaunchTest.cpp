//===- LaunchTest.cpp - Signatures, packed arguments, devices, kernels ----===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The launch path of the JIT library: what a signature accepts, where each
// field of a packed argument goes, which arguments are refused and how the
// message names them, and calls on the CPU device with strided views and
// scalars, checked against values computed here.
//
//===----------------------------------------------------------------------===//

#include "tile/InitTile.h"
#include "tile/JIT/Device.h"
#include "tile/JIT/Kernel.h"
#include "tile/Runtime/CudaRuntime.h"
#include "tile/Runtime/RocmRuntime.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <numeric>

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::jit;

namespace {

class LaunchTest : public ::testing::Test {
protected:
  LaunchTest() {
    DialectRegistry registry;
    registerTileDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  FailureOr<Signature> signatureOf(StringRef text, std::string &error) {
    module = parse(text);
    EXPECT_TRUE(module);
    auto function = *module->getOps<FunctionOpInterface>().begin();
    return Signature::get(function, error);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(LaunchTest, SignaturesDescribeMemRefsAndScalars) {
  std::string error;
  FailureOr<Signature> signature = signatureOf(
      "func.func @f(%a: memref<4x?xf16>, %b: memref<?x8xbf16, "
      "strided<[?, 2], offset: ?>>, %c: i32, %d: f8E4M3FN, %e: index) "
      "{ return }",
      error);
  ASSERT_TRUE(succeeded(signature)) << error;
  EXPECT_EQ(signature->name, "f");
  ASSERT_EQ(signature->parameters.size(), 5u);
  const Parameter &a = signature->parameters[0];
  EXPECT_TRUE(a.isMemRef());
  EXPECT_TRUE(a.rowMajor);
  EXPECT_EQ(a.elementType, ElementType::F16);
  EXPECT_EQ(a.shape, (SmallVector<int64_t>{4, ShapedType::kDynamic}));
  EXPECT_EQ(a.strides, (SmallVector<int64_t>{ShapedType::kDynamic, 1}));
  EXPECT_EQ(a.getNumSlots(), 7u);
  const Parameter &b = signature->parameters[1];
  EXPECT_FALSE(b.rowMajor);
  EXPECT_EQ(b.strides, (SmallVector<int64_t>{ShapedType::kDynamic, 2}));
  EXPECT_TRUE(ShapedType::isDynamic(b.offset));
  EXPECT_EQ(signature->parameters[2].elementType, ElementType::I32);
  EXPECT_EQ(signature->parameters[3].elementType, ElementType::F8E4M3FN);
  EXPECT_EQ(signature->parameters[4].elementType, ElementType::Index);
  EXPECT_EQ(signature->parameters[4].getNumSlots(), 1u);
  EXPECT_EQ(signature->describeArgument(1),
            "argument #1 (memref<?x8xbf16, strided<[?, 2], offset: ?>>): ");
}

TEST_F(LaunchTest, SignaturesRefuseWhatACallerCannotPass) {
  std::string error;
  EXPECT_TRUE(failed(
      signatureOf("func.func @f(%a: i32) -> i32 { return %a : i32 }", error)));
  EXPECT_EQ(error, "@f returns values; compiled functions write their "
                   "results into memref arguments");
  EXPECT_TRUE(failed(
      signatureOf("func.func @f(%a: memref<4xf32, 3>) { return }", error)));
  EXPECT_EQ(error, "argument #0 (memref<4xf32, 3>): only memrefs in the "
                   "default memory space can be passed");
  EXPECT_TRUE(failed(signatureOf(
      "func.func @f(%a: i32, %b: vector<4xf32>) { return }", error)));
  EXPECT_EQ(error, "argument #1 (vector<4xf32>): this type cannot be passed");
  EXPECT_TRUE(
      failed(signatureOf("func.func @f(%a: memref<4xi4>) { return }", error)));
  EXPECT_EQ(error,
            "argument #0 (memref<4xi4>): element type i4 cannot be passed");
  EXPECT_TRUE(failed(signatureOf(
      "func.func @f(%a: memref<4x4xf32, affine_map<(i, j) -> (j, i)>>) "
      "{ return }",
      error)));
  EXPECT_EQ(error, "argument #0 (memref<4x4xf32, affine_map<(d0, d1) -> "
                   "(d1, d0)>>): the layout is not strided");
}

TEST_F(LaunchTest, PackedArgumentsFillDescriptorsAndScalars) {
  std::string error;
  FailureOr<Signature> signature = signatureOf(
      "func.func @f(%a: memref<3x?xf32>, %b: memref<?xi8, strided<[?], "
      "offset: 5>>, %c: f16, %d: i1) { return }",
      error);
  ASSERT_TRUE(succeeded(signature)) << error;
  PackedArguments args(*signature);
  float a[3 * 7];
  int8_t b[20];
  ASSERT_TRUE(
      succeeded(args.setMemRef(0, a, ElementType::F32, {3, 7}, {}, &error)))
      << error;
  ASSERT_TRUE(
      succeeded(args.setMemRef(1, b + 10, ElementType::I8, {4}, {2}, &error)))
      << error;
  ASSERT_TRUE(succeeded(args.setFloat(2, 1.5, &error))) << error;
  ASSERT_TRUE(succeeded(args.setInteger(3, 7, &error))) << error;
  void **packed = args.data();
  auto value = [&](unsigned slot) {
    return *static_cast<int64_t *>(packed[slot]);
  };
  // a: allocated, aligned, offset, sizes, strides (row-major).
  EXPECT_EQ(*static_cast<float **>(packed[0]), a);
  EXPECT_EQ(*static_cast<float **>(packed[1]), a);
  EXPECT_EQ(value(2), 0);
  EXPECT_EQ(value(3), 3);
  EXPECT_EQ(value(4), 7);
  EXPECT_EQ(value(5), 7);
  EXPECT_EQ(value(6), 1);
  // b: the static offset 5 is folded into the aligned pointer.
  EXPECT_EQ(*static_cast<int8_t **>(packed[8]), b + 5);
  EXPECT_EQ(value(9), 5);
  EXPECT_EQ(value(10), 4);
  EXPECT_EQ(value(11), 2);
  // c: f16 bits of 1.5; d: an i1 is one byte.
  EXPECT_EQ(*static_cast<uint16_t *>(packed[12]), 0x3e00);
  EXPECT_EQ(*static_cast<uint8_t *>(packed[13]), 1);
  EXPECT_EQ(args.getSignature().parameters.size(), 4u);
}

TEST_F(LaunchTest, PackedArgumentsNameTheArgumentTheyRefuse) {
  std::string error;
  FailureOr<Signature> signature =
      signatureOf("func.func @g(%a: memref<4x8xf32>, %b: memref<?x?xf32, "
                  "strided<[16, 1], offset: ?>>, %n: i32) { return }",
                  error);
  ASSERT_TRUE(succeeded(signature)) << error;
  PackedArguments args(*signature);
  float data[64];
  auto refuses = [&](LogicalResult result) {
    EXPECT_TRUE(failed(result));
    return error;
  };
  EXPECT_EQ(refuses(args.setMemRef(0, data, ElementType::F32, {4}, {}, &error)),
            "argument #0 (memref<4x8xf32>): rank 1 does not match the "
            "parameter's rank 2");
  EXPECT_EQ(
      refuses(args.setMemRef(0, data, ElementType::F32, {4, 7}, {}, &error)),
      "argument #0 (memref<4x8xf32>): shape 4x7 does not match the "
      "parameter's static shape");
  EXPECT_EQ(
      refuses(args.setMemRef(0, data, ElementType::F16, {4, 8}, {}, &error)),
      "argument #0 (memref<4x8xf32>): element type f16 does not match the "
      "parameter's f32");
  EXPECT_EQ(refuses(args.setMemRef(0, data, ElementType::F32, {4, 8}, {1, 4},
                                   &error)),
            "argument #0 (memref<4x8xf32>): strides [1, 4] are not "
            "row-major; the parameter's layout is the identity");
  EXPECT_EQ(
      refuses(args.setMemRef(0, data, ElementType::F32, {4, 8}, {8}, &error)),
      "argument #0 (memref<4x8xf32>): 1 strides given for rank 2");
  EXPECT_EQ(refuses(args.setMemRef(1, data, ElementType::F32, {2, 8}, {8, 1},
                                   &error)),
            "argument #1 (memref<?x?xf32, strided<[16, 1], offset: ?>>): "
            "strides [8, 1] do not match the parameter's [16, 1]");
  EXPECT_EQ(
      refuses(args.setMemRef(1, data, ElementType::F32, {2, -1}, {}, &error)),
      "argument #1 (memref<?x?xf32, strided<[16, 1], offset: ?>>): "
      "negative size in shape [2, -1]");
  EXPECT_EQ(refuses(args.setMemRef(2, data, ElementType::I32, {1}, {}, &error)),
            "argument #2 (i32): expects a scalar, got an array");
  EXPECT_EQ(refuses(args.setFloat(2, 0.5, &error)),
            "argument #2 (i32): expects an integer (i32), got a "
            "floating-point value");
  int32_t seven = 7;
  EXPECT_EQ(refuses(args.setScalar(0, ElementType::I32, &seven, &error)),
            "argument #0 (memref<4x8xf32>): expects an array, got a scalar");
  EXPECT_EQ(refuses(args.setScalar(2, ElementType::I64, &seven, &error)),
            "argument #2 (i32): element type i64 does not match the "
            "parameter's i32");
  EXPECT_EQ(refuses(args.setInteger(3, 1, &error)),
            "argument index 3 is out of range: @g has 3 arguments");

  // A dimension of size 1 may have any stride (as torch gives them); an
  // empty array any strides at all.
  EXPECT_TRUE(succeeded(
      args.setMemRef(1, data, ElementType::F32, {1, 8}, {99, 1}, &error)))
      << error;
  EXPECT_EQ(*static_cast<int64_t *>(args.data()[12]), 16);
  EXPECT_TRUE(succeeded(
      args.setMemRef(1, data, ElementType::F32, {0, 8}, {3, 3}, &error)))
      << error;
}

TEST_F(LaunchTest, SelectsDevicesByName) {
  std::string error;
  FailureOr<std::unique_ptr<Device>> cpu =
      selectDevice("cpu", "", false, error);
  ASSERT_TRUE(succeeded(cpu));
  EXPECT_EQ((*cpu)->getTarget(), Target::CPU);
  EXPECT_EQ((*cpu)->getDescription(), "cpu");
  EXPECT_TRUE(failed(selectDevice("tpu", "", false, error)));
  EXPECT_EQ(error, "unknown target 'tpu' (expected auto, cuda, rocm or cpu)");
  FailureOr<std::unique_ptr<Device>> automatic =
      selectDevice("auto", "", false, error);
  ASSERT_TRUE(succeeded(automatic));
  std::string why;
  std::unique_ptr<Device> gpu = createGpuDevice(Target::NVIDIA, "", &why);
  EXPECT_EQ((*automatic)->getTarget(), gpu ? Target::NVIDIA : Target::CPU);
  // GPU ordinals: none on the CPU; past the last GPU, "auto" is CUDA's
  // failure, never the CPU.
  EXPECT_TRUE(failed(selectDevice("cpu", "", false, error, 1)));
  EXPECT_EQ(error, "the CPU has no device 1 (device ordinals number GPUs)");
  int count = getGpuDeviceCount(Target::NVIDIA);
  std::string pastWhy;
  EXPECT_EQ(createGpuDevice(Target::NVIDIA, "", &pastWhy, count + 1), nullptr);
  EXPECT_TRUE(failed(selectDevice("auto", "", false, error, count + 1)));
  EXPECT_EQ(error, "no CUDA device: " + pastWhy);
  if (count > 1) {
    FailureOr<std::unique_ptr<Device>> second =
        selectDevice("auto", "", false, error, 1);
    ASSERT_TRUE(succeeded(second)) << error;
    EXPECT_EQ((*second)->getTarget(), Target::NVIDIA);
    EXPECT_EQ((*second)->getOrdinal(), 1);
  }
  if (gpu)
    return;
  // Without a GPU: a GPU target fails with the reason (and, where compiling
  // alone is allowed, how to do that), or, with a chip and allowOffline,
  // compiles only.
  EXPECT_TRUE(failed(selectDevice("cuda", "", false, error)));
  EXPECT_EQ(error, "no CUDA device: " + why);
  EXPECT_TRUE(failed(selectDevice("cuda", "", true, error)));
  EXPECT_EQ(error, "no CUDA device: " + why +
                       "; name the chip (e.g. sm_90a) to compile without a "
                       "device");
  FailureOr<std::unique_ptr<Device>> offline =
      selectDevice("cuda", "sm_90a", true, error);
  ASSERT_TRUE(succeeded(offline));
  EXPECT_FALSE((*offline)->canRun());
  EXPECT_EQ((*offline)->getChip(), "sm_90a");
  EXPECT_EQ((*offline)->getDescription(), "sm_90a (no device)");
  EXPECT_EQ((*offline)->allocate(4), nullptr);
  EXPECT_TRUE(failed((*offline)->synchronize()));
  EXPECT_EQ((*offline)->getLastError(), "sm_90a (no device) cannot run code");
}

/// A GPU device comes from the runtime this build has: without its GPU, the
/// reason is the runtime's own.
void expectGpuDeviceFromRuntime(Target target, const char *name,
                                runtime::Runtime *runtime) {
  std::string why;
  std::unique_ptr<Device> gpu = createGpuDevice(target, "", &why);
  if (!runtime) {
    EXPECT_EQ(gpu, nullptr);
    EXPECT_EQ(why.rfind("this build has no ", 0), 0u) << why;
    return;
  }
  std::string runtimeWhy;
  bool present = runtime->initialize(&runtimeWhy);
  EXPECT_EQ(bool(gpu), present) << name;
  EXPECT_EQ(getGpuDeviceCount(target), runtime->getDeviceCount()) << name;
  // A device past the last is refused, with the count.
  int count = runtime->getDeviceCount();
  std::string pastWhy;
  EXPECT_EQ(createGpuDevice(target, "", &pastWhy, count), nullptr) << name;
  if (!present) {
    EXPECT_EQ(why, runtimeWhy) << name;
    EXPECT_EQ(count, 0) << name;
    EXPECT_EQ(pastWhy, runtimeWhy) << name;
    return;
  }
  EXPECT_EQ(gpu->getChip(), runtime->getDeviceInfo().chip);
  EXPECT_EQ(gpu->getOrdinal(), 0);
  EXPECT_NE(pastWhy.find("(found " + std::to_string(count) + ")"),
            std::string::npos)
      << pastWhy;
  // Every GPU of the machine is a device of its own, with its ordinal.
  for (int ordinal = 1; ordinal < count; ++ordinal) {
    std::unique_ptr<Device> other = createGpuDevice(target, "", &why, ordinal);
    ASSERT_NE(other, nullptr) << why;
    EXPECT_EQ(other->getOrdinal(), ordinal);
    EXPECT_TRUE(succeeded(other->synchronize())) << other->getLastError();
  }
}

TEST(Devices, GpuDevicesUseTheBuildsRuntimes) {
  expectGpuDeviceFromRuntime(Target::NVIDIA, "cuda", &runtime::getCudaRuntime());
  expectGpuDeviceFromRuntime(Target::AMD, "rocm", &runtime::getRocmRuntime());
}

/// y[i] = a * x[i * stride] + y[i] for i < n, through memrefs with dynamic
/// strides and two scalars.
constexpr const char *kAxpy = R"mlir(
func.func @axpy(%x: memref<?xf32, strided<[?], offset: ?>>, %y: memref<?xf32>,
                %a: f32, %n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count = arith.index_cast %n : i32 to index
  scf.for %i = %c0 to %count step %c1 {
    %xi = memref.load %x[%i] : memref<?xf32, strided<[?], offset: ?>>
    %yi = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %a, %xi : f32
    %s = arith.addf %p, %yi : f32
    memref.store %s, %y[%i] : memref<?xf32>
  }
  return
}
func.func @returns(%a: i32) -> i32 { return %a : i32 }
)mlir";

TEST_F(LaunchTest, CallsAKernelOnTheCpuWithStridesAndScalars) {
  module = parse(kAxpy);
  ASSERT_TRUE(module);
  std::unique_ptr<Device> device = createCpuDevice();
  CompileOptions options = device->getCompileOptions();
  options.optLevel = 1;
  Compiler compiler(options, device->getRuntimeSymbols());
  FailureOr<std::shared_ptr<Executable>> executable = compiler.compile(*module);
  ASSERT_TRUE(succeeded(executable));
  std::string error;
  FailureOr<Kernel> kernel = Kernel::get(*executable, "axpy", *device, &error);
  ASSERT_TRUE(succeeded(kernel)) << error;
  EXPECT_TRUE(failed(Kernel::get(*executable, "returns", *device, &error)));
  EXPECT_EQ(error, "@returns returns values; compiled functions write their "
                   "results into memref arguments");
  EXPECT_TRUE(failed(Kernel::get(*executable, "nothere", *device, &error)));
  EXPECT_EQ(error, "no public function @nothere in the compiled module");

  // x is every third element of a buffer; y gets a * x + y, twice, with
  // the arguments laid out once.
  std::vector<float> buffer(30), y(10);
  std::iota(buffer.begin(), buffer.end(), 0.0f);
  std::iota(y.begin(), y.end(), 100.0f);
  std::vector<float> expected = y;
  PackedArguments args = kernel->makeArguments();
  ASSERT_TRUE(succeeded(
      args.setMemRef(0, buffer.data(), ElementType::F32, {10}, {3}, &error)));
  ASSERT_TRUE(succeeded(
      args.setMemRef(1, y.data(), ElementType::F32, {10}, {}, &error)));
  ASSERT_TRUE(succeeded(args.setFloat(2, 0.5, &error)));
  ASSERT_TRUE(succeeded(args.setInteger(3, 9, &error)));
  for (int call = 0; call < 2; ++call) {
    ASSERT_TRUE(succeeded(kernel->call(args, &error))) << error;
    for (int i = 0; i < 9; ++i)
      expected[i] += 0.5f * buffer[3 * i];
  }
  // The same kernel on another device of its target (here a second CPU
  // device; a GPU's code runs on every GPU of its runtime).
  std::unique_ptr<Device> other = createCpuDevice();
  Kernel moved = kernel->withDevice(*other);
  EXPECT_EQ(&moved.getDevice(), other.get());
  EXPECT_EQ(&kernel->getDevice(), device.get());
  ASSERT_TRUE(succeeded(moved.call(args, &error))) << error;
  for (int i = 0; i < 9; ++i)
    expected[i] += 0.5f * buffer[3 * i];
  EXPECT_EQ(y, expected);

  FailureOr<Timing> timing = kernel->benchmark(args, 5, 1, &error);
  ASSERT_TRUE(succeeded(timing)) << error;
  EXPECT_EQ(timing->seconds.size(), 5u);
  EXPECT_LE(timing->getMin(), timing->getMedian());
  EXPECT_LE(timing->getMedian(), timing->getMax());
  EXPECT_TRUE(failed(kernel->measureLaunchOverhead(args, 5, 1, &error)));
  EXPECT_EQ(error, "launch overhead is measured on GPU devices only");
}

TEST(ElementTypes, RoundTripNamesAndValues) {
  for (ElementType type :
       {ElementType::F16, ElementType::BF16, ElementType::F32, ElementType::F64,
        ElementType::F8E4M3FN, ElementType::F8E5M2, ElementType::I1,
        ElementType::I8, ElementType::I16, ElementType::I32, ElementType::I64,
        ElementType::Index}) {
    EXPECT_EQ(parseElementType(stringifyElementType(type)), type);
    unsigned char storage[8] = {0};
    storeElement(type, storage, 1.0);
    EXPECT_EQ(loadElement(type, storage), 1.0)
        << stringifyElementType(type).str();
  }
  unsigned char storage[8];
  // Rounding to nearest even: 1 + 2^-11 is halfway between two f16 values.
  storeElement(ElementType::F16, storage, 1.0 + 1.0 / 2048);
  EXPECT_EQ(loadElement(ElementType::F16, storage), 1.0);
  storeElement(ElementType::F8E4M3FN, storage, 0.3);
  EXPECT_EQ(loadElement(ElementType::F8E4M3FN, storage), 0.3125);
  storeElement(ElementType::F8E5M2, storage, 0.3);
  EXPECT_EQ(loadElement(ElementType::F8E5M2, storage), 0.3125);
  EXPECT_EQ(getByteWidth(ElementType::BF16), 2u);
  EXPECT_FALSE(parseElementType("f17"));
}

} // namespace
