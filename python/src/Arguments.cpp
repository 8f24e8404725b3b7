//===- Arguments.cpp - Python arguments to packed kernel calls ------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace mlir::tile::python;
namespace jit = mlir::tile::jit;

namespace {

// DLPack's ABI (dlpack.h, v0.8 "dltensor" capsules), declared here: it is a
// stable C layout and the only part of DLPack this file needs.
struct DLDevice {
  int32_t deviceType;
  int32_t deviceId;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byteOffset;
};
struct DLManagedTensor {
  DLTensor tensor;
  void *managerContext;
  void (*deleter)(DLManagedTensor *);
};
// DLPack 1.3's exchange API (`__dlpack_c_exchange_api__` on the tensor type,
// a "dlpack_exchange_api" capsule): C functions that describe a tensor
// without a capsule and give the producer's current stream. Only the fields
// this file calls are typed.
struct DLPackVersion {
  uint32_t major;
  uint32_t minor;
};
struct DLPackExchangeAPIHeader {
  DLPackVersion version;
  DLPackExchangeAPIHeader *previous;
};
struct DLPackExchangeAPI {
  DLPackExchangeAPIHeader header;
  void *managedTensorAllocator;
  void *managedTensorFromPyObjectNoSync;
  void *managedTensorToPyObjectNoSync;
  int (*dltensorFromPyObjectNoSync)(void *object, DLTensor *out);
  int (*currentWorkStream)(int32_t deviceType, int32_t deviceId,
                           void **stream);
};
enum : uint8_t {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
  kDLBool = 6,
  kDLFloat8E4M3FN = 10,
  kDLFloat8E4M3FNUZ = 11,
  kDLFloat8E5M2 = 12,
  kDLFloat8E5M2FNUZ = 13,
};
enum : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLROCM = 10,
  kDLCUDAManaged = 13,
};

bool matches(DType type, DLDataType dl) {
  if (dl.lanes != 1)
    return false;
  switch (type) {
  case DType::F16:
    return dl.code == kDLFloat && dl.bits == 16;
  case DType::BF16:
    return dl.code == kDLBfloat && dl.bits == 16;
  case DType::F32:
    return dl.code == kDLFloat && dl.bits == 32;
  case DType::F64:
    return dl.code == kDLFloat && dl.bits == 64;
  case DType::F8E4M3:
    return dl.code == kDLFloat8E4M3FN && dl.bits == 8;
  case DType::F8E5M2:
    return dl.code == kDLFloat8E5M2 && dl.bits == 8;
  case DType::F8E4M3FNUZ:
    return dl.code == kDLFloat8E4M3FNUZ && dl.bits == 8;
  case DType::F8E5M2FNUZ:
    return dl.code == kDLFloat8E5M2FNUZ && dl.bits == 8;
  case DType::Bool:
    return (dl.code == kDLBool || dl.code == kDLUInt) && dl.bits == 8;
  case DType::I8:
    return dl.code == kDLInt && dl.bits == 8;
  case DType::I16:
    return dl.code == kDLInt && dl.bits == 16;
  case DType::I32:
    return dl.code == kDLInt && dl.bits == 32;
  case DType::I64:
  case DType::Index:
    return dl.code == kDLInt && dl.bits == 64;
  case DType::U8:
    return dl.code == kDLUInt && dl.bits == 8;
  }
  return false;
}

std::string describe(DLDataType dl) {
  const char *kind = "?";
  switch (dl.code) {
  case kDLInt:
    kind = "int";
    break;
  case kDLUInt:
    kind = "uint";
    break;
  case kDLFloat:
    kind = "float";
    break;
  case kDLBfloat:
    kind = "bfloat";
    break;
  case kDLBool:
    return "bool";
  case kDLFloat8E4M3FN:
    return "float8_e4m3";
  case kDLFloat8E5M2:
    return "float8_e5m2";
  case kDLFloat8E4M3FNUZ:
    return "float8_e4m3fnuz";
  case kDLFloat8E5M2FNUZ:
    return "float8_e5m2fnuz";
  default:
    return "dlpack type code " + std::to_string(dl.code);
  }
  std::string s = kind + std::to_string(dl.bits);
  if (dl.lanes != 1)
    s += "x" + std::to_string(dl.lanes);
  return s;
}

std::string formatList(const int64_t *values, int n) {
  std::string s = "(";
  for (int i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  if (n == 1)
    s += ",";
  return s + ")";
}

const char *deviceName(int32_t type) {
  switch (type) {
  case kDLCPU:
  case kDLCUDAHost:
    return "cpu";
  case kDLCUDA:
  case kDLCUDAManaged:
    return "cuda";
  case kDLROCM:
    return "rocm";
  default:
    return "an unknown device";
  }
}

bool onDevice(jit::Target kind, int32_t type) {
  switch (kind) {
  case jit::Target::CPU:
    return type == kDLCPU || type == kDLCUDAHost;
  case jit::Target::NVIDIA:
    return type == kDLCUDA || type == kDLCUDAManaged;
  case jit::Target::AMD:
    return type == kDLROCM;
  }
  return false;
}

/// The argument's name in messages: "argument 'A' (#0)".
std::string argName(const Param &param, size_t index) {
  return "argument '" + param.name + "' (#" + std::to_string(index) + ")";
}

bool fail(PyObject *type, const std::string &message) {
  PyErr_SetString(type, message.c_str());
  return false;
}

uint16_t toHalf(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  uint32_t sign = (f >> 16) & 0x8000;
  int32_t exponent = int32_t((f >> 23) & 0xff) - 127 + 15;
  uint32_t mantissa = f & 0x7fffff;
  if (((f >> 23) & 0xff) == 0xff)
    return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 31)
    return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000;
    uint32_t shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = sign | (exponent << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half;
  return half;
}

uint16_t toBFloat16(float value) {
  uint32_t f;
  std::memcpy(&f, &value, 4);
  if (std::isnan(value))
    return 0x7fc0;
  f += 0x7fff + ((f >> 16) & 1);
  return f >> 16;
}

/// Stores a Python number as `type` into `word`.
bool packScalar(const Param &param, size_t index, PyObject *object,
                int64_t &word) {
  word = 0;
  bool isFloat = param.dtype == DType::F16 || param.dtype == DType::BF16 ||
                 param.dtype == DType::F32 || param.dtype == DType::F64;
  bool plain = PyLong_CheckExact(object) || PyFloat_CheckExact(object) ||
               PyBool_Check(object);
  if (!plain && (PyObject_CheckBuffer(object) ||
                 PyObject_HasAttrString(object, "__dlpack__"))) {
    // A 0-d array is a scalar; anything larger is a mistake.
    PyObject *size = PyObject_GetAttrString(object, "ndim");
    long ndim = size ? PyLong_AsLong(size) : -1;
    Py_XDECREF(size);
    PyErr_Clear();
    if (ndim != 0)
      return fail(PyExc_TypeError,
                  argName(param, index) + " is a scalar of type " +
                      dtypeName(param.dtype) + ", got an array");
  }
  if (isFloat) {
    double value = PyFloat_AsDouble(object);
    if (value == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return fail(PyExc_TypeError, argName(param, index) + " expects a " +
                                       dtypeName(param.dtype) + " scalar, got " +
                                       Py_TYPE(object)->tp_name);
    }
    switch (param.dtype) {
    case DType::F16: {
      uint16_t bits = toHalf(float(value));
      std::memcpy(&word, &bits, 2);
      break;
    }
    case DType::BF16: {
      uint16_t bits = toBFloat16(float(value));
      std::memcpy(&word, &bits, 2);
      break;
    }
    case DType::F32: {
      float f = float(value);
      std::memcpy(&word, &f, 4);
      break;
    }
    default:
      std::memcpy(&word, &value, 8);
      break;
    }
    return true;
  }
  if (PyFloat_Check(object))
    return fail(PyExc_TypeError, argName(param, index) + " expects an " +
                                     dtypeName(param.dtype) +
                                     " scalar, got a float");
  PyObject *integer = PyNumber_Index(object);
  if (!integer) {
    PyErr_Clear();
    return fail(PyExc_TypeError, argName(param, index) + " expects an " +
                                     dtypeName(param.dtype) + " scalar, got " +
                                     Py_TYPE(object)->tp_name);
  }
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(integer, &overflow);
  Py_DECREF(integer);
  int64_t bytes = dtypeBytes(param.dtype);
  bool unsignedType = param.dtype == DType::U8 || param.dtype == DType::Bool;
  bool inRange = !overflow;
  if (inRange && bytes < 8) {
    int64_t bits = param.dtype == DType::Bool ? 1 : bytes * 8;
    int64_t lo = unsignedType ? 0 : -(int64_t(1) << (bits - 1));
    int64_t hi = unsignedType ? (int64_t(1) << bits) - 1
                              : (int64_t(1) << (bits - 1)) - 1;
    inRange = value >= lo && value <= hi;
  }
  if (!inRange)
    return fail(PyExc_OverflowError, argName(param, index) + ": " +
                                         std::to_string(value) +
                                         " does not fit in " +
                                         dtypeName(param.dtype));
  std::memcpy(&word, &value, 8);
  return true;
}

/// torch.Tensor and torch.utils.dlpack.to_dlpack (a C function), once torch
/// is in use: calling it skips the stream handling of Tensor.__dlpack__.
/// Where torch has DLPack's exchange API, its functions describe tensors
/// without a capsule (and no allocation) instead.
PyTypeObject *torchTensorType = nullptr;
PyObject *torchToDlpack = nullptr;
const DLPackExchangeAPI *torchExchange = nullptr;

/// An array argument's DLTensor: borrowed from the tensor (exchange API) or
/// from a DLPack capsule, released with it.
struct ArrayView {
  DLTensor tensor;
  PyObject *capsule = nullptr;
  /// A read-only array, described through the buffer protocol (DLPack
  /// before 1.0 cannot say "read-only", so NumPy refuses to export one).
  Py_buffer buffer{};
  bool hasBuffer = false;
  std::vector<int64_t> shape, strides;
  bool readOnly = false;
  ~ArrayView() {
    Py_XDECREF(capsule);
    if (hasBuffer)
      PyBuffer_Release(&buffer);
  }
};

/// The DLPack type of a buffer-protocol format ("e", "<f", "=i", ...), or
/// false for one DLPack has no code for.
bool dtypeOfFormat(const char *format, Py_ssize_t itemsize, DLDataType &type) {
  std::string f = format ? format : "B";
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '!' ||
                     f[0] == '>'))
    f = f.substr(1);
  if (f.size() != 1)
    return false;
  type.lanes = 1;
  type.bits = uint8_t(itemsize * 8);
  switch (f[0]) {
  case 'e': case 'f': case 'd':
    type.code = kDLFloat;
    return true;
  case 'b': case 'h': case 'i': case 'l': case 'q':
    type.code = kDLInt;
    return true;
  case 'B': case 'H': case 'I': case 'L': case 'Q':
    type.code = kDLUInt;
    return true;
  case '?':
    type.code = kDLBool;
    return true;
  default:
    return false;
  }
}

/// Describes a read-only buffer-protocol array (a NumPy array with
/// writeable=False) in `view`; false, with no error set, when `object` is
/// not one.
bool getReadOnlyBuffer(PyObject *object, ArrayView &view) {
  if (!PyObject_CheckBuffer(object) ||
      PyObject_GetBuffer(object, &view.buffer, PyBUF_RECORDS_RO) != 0) {
    PyErr_Clear();
    return false;
  }
  view.hasBuffer = true;
  if (!view.buffer.readonly ||
      !dtypeOfFormat(view.buffer.format, view.buffer.itemsize,
                     view.tensor.dtype))
    return false;
  int ndim = view.buffer.ndim;
  view.shape.assign(view.buffer.shape, view.buffer.shape + ndim);
  view.strides.resize(ndim);
  for (int d = 0; d < ndim; ++d) {
    if (view.buffer.strides[d] % view.buffer.itemsize != 0)
      return false;
    view.strides[d] = view.buffer.strides[d] / view.buffer.itemsize;
  }
  view.tensor.data = view.buffer.buf;
  view.tensor.device = {kDLCPU, 0};
  view.tensor.ndim = ndim;
  view.tensor.shape = view.shape.data();
  view.tensor.strides = view.strides.data();
  view.tensor.byteOffset = 0;
  view.readOnly = true;
  return true;
}

/// Describes an array argument in `view`; false with a TypeError naming the
/// argument when it is not one.
bool getArray(const Param &param, size_t index, PyObject *object,
              ArrayView &view) {
  PyObject *capsule = nullptr;
  bool isTorch = torchTensorType && PyObject_TypeCheck(object, torchTensorType);
  if (isTorch && torchExchange) {
    if (torchExchange->dltensorFromPyObjectNoSync(object, &view.tensor) == 0)
      return true;
  } else if (isTorch) {
    capsule = PyObject_CallOneArg(torchToDlpack, object);
  } else if (PyObject_HasAttrString(object, "__dlpack__")) {
    capsule = PyObject_CallMethod(object, "__dlpack__", nullptr);
    // NumPy refuses to export a read-only array through DLPack.
    if (!capsule && getReadOnlyBuffer(object, view)) {
      PyErr_Clear();
      return true;
    }
  }
  if (capsule) {
    auto *managed = static_cast<DLManagedTensor *>(
        PyCapsule_GetPointer(capsule, "dltensor"));
    if (!managed) {
      Py_DECREF(capsule);
      PyErr_Clear();
      fail(PyExc_TypeError, argName(param, index) +
                                ": __dlpack__ did not give a DLPack tensor "
                                "capsule");
      return false;
    }
    // The capsule's destructor releases the tensor: it lives as long as
    // the view.
    view.tensor = managed->tensor;
    view.capsule = capsule;
    return true;
  }
  std::string reason;
  if (PyErr_Occurred()) {
    PyObject *type, *value, *trace;
    PyErr_Fetch(&type, &value, &trace);
    if (PyObject *text = value ? PyObject_Str(value) : nullptr) {
      if (const char *utf8 = PyUnicode_AsUTF8(text))
        reason = std::string(" (") + utf8 + ")";
      Py_DECREF(text);
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(trace);
    PyErr_Clear();
  }
  fail(PyExc_TypeError, argName(param, index) +
                            " expects an array (a torch tensor, a NumPy "
                            "array or any DLPack producer), got " +
                            Py_TYPE(object)->tp_name + reason);
  return false;
}

} // namespace

void mlir::tile::python::clearTorch() {
  torchExchange = nullptr;
  PyObject *type = reinterpret_cast<PyObject *>(torchTensorType);
  torchTensorType = nullptr;
  Py_XDECREF(type);
  Py_CLEAR(torchToDlpack);
}

void mlir::tile::python::setTorch(PyObject *tensorType, PyObject *toDlpack) {
  clearTorch();
  Py_XINCREF(tensorType);
  Py_XINCREF(toDlpack);
  torchTensorType = reinterpret_cast<PyTypeObject *>(tensorType);
  torchToDlpack = toDlpack;
  // DLPack 1.3 or later (a later minor version only adds fields).
  torchExchange = nullptr;
  PyObject *capsule =
      PyObject_GetAttrString(tensorType, "__dlpack_c_exchange_api__");
  if (!capsule) {
    PyErr_Clear();
    return;
  }
  auto *api = static_cast<const DLPackExchangeAPI *>(
      PyCapsule_GetPointer(capsule, "dlpack_exchange_api"));
  if (!api)
    PyErr_Clear();
  else if (api->header.version.major == 1 &&
           api->header.version.minor >= 3 && api->dltensorFromPyObjectNoSync)
    torchExchange = api; // lives as long as torch, which tile keeps
  Py_DECREF(capsule);
}

bool mlir::tile::python::getTorchStream(int deviceId, void **stream) {
  if (!torchExchange || !torchExchange->currentWorkStream)
    return false;
  if (torchExchange->currentWorkStream(kDLCUDA, deviceId, stream) != 0) {
    PyErr_Clear();
    return false;
  }
  return true;
}

const char *mlir::tile::python::dtypeName(DType type) {
  switch (type) {
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::F32:
    return "float32";
  case DType::F64:
    return "float64";
  case DType::F8E4M3:
    return "float8_e4m3";
  case DType::F8E5M2:
    return "float8_e5m2";
  case DType::F8E4M3FNUZ:
    return "float8_e4m3fnuz";
  case DType::F8E5M2FNUZ:
    return "float8_e5m2fnuz";
  case DType::Bool:
    return "bool";
  case DType::I8:
    return "int8";
  case DType::I16:
    return "int16";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::U8:
    return "uint8";
  case DType::Index:
    return "index";
  }
  return "?";
}

int64_t mlir::tile::python::dtypeBytes(DType type) {
  switch (type) {
  case DType::F16:
  case DType::BF16:
  case DType::I16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F64:
  case DType::I64:
  case DType::Index:
    return 8;
  default:
    return 1;
  }
}

jit::ElementType mlir::tile::python::toElementType(DType type) {
  switch (type) {
  case DType::F16:
    return jit::ElementType::F16;
  case DType::BF16:
    return jit::ElementType::BF16;
  case DType::F32:
    return jit::ElementType::F32;
  case DType::F64:
    return jit::ElementType::F64;
  case DType::F8E4M3:
    return jit::ElementType::F8E4M3FN;
  case DType::F8E5M2:
    return jit::ElementType::F8E5M2;
  case DType::F8E4M3FNUZ:
    return jit::ElementType::F8E4M3FNUZ;
  case DType::F8E5M2FNUZ:
    return jit::ElementType::F8E5M2FNUZ;
  case DType::Bool:
    return jit::ElementType::I1;
  case DType::I8:
  case DType::U8:
    return jit::ElementType::I8;
  case DType::I16:
    return jit::ElementType::I16;
  case DType::I32:
    return jit::ElementType::I32;
  case DType::I64:
    return jit::ElementType::I64;
  case DType::Index:
    return jit::ElementType::Index;
  }
  return jit::ElementType::F32;
}

bool mlir::tile::python::packArguments(const std::vector<Param> &params,
                                       jit::Target device, int &deviceId,
                                       PyObject *const *args, size_t nargs,
                                       jit::PackedArguments &packed) {
  if (nargs != params.size())
    return fail(PyExc_TypeError,
                "the kernel takes " + std::to_string(params.size()) +
                    " arguments, got " + std::to_string(nargs));
  std::string error;
  auto library = [&](unsigned index) {
    // The frontend checked what the library checks; a refusal here means
    // the two disagree.
    return fail(PyExc_RuntimeError, "internal error: argument #" +
                                        std::to_string(index) + ": " + error);
  };

  // Scalars first: sizes of T.ptr buffers may come from them.
  std::vector<int64_t> scalars(params.size(), 0);
  for (size_t i = 0; i < params.size(); ++i) {
    const Param &param = params[i];
    if (!param.isScalar)
      continue;
    if (!packScalar(param, i, args[i], scalars[i]))
      return false;
    if (failed(packed.setScalar(i, toElementType(param.dtype), &scalars[i],
                                &error)))
      return library(i);
  }
  auto scalarValue = [&](int64_t index) { return scalars[index]; };

  // Sizes of each dynamic group, as first seen.
  std::vector<std::pair<int, std::pair<int64_t, std::string>>> groups;
  // The first array argument: the others must be on its device.
  size_t first = params.size();
  for (size_t i = 0; i < params.size(); ++i) {
    const Param &param = params[i];
    if (param.isScalar)
      continue;
    // Everything needed is copied out before the view goes.
    ArrayView view;
    if (!getArray(param, i, args[i], view))
      return false;
    const DLTensor &t = view.tensor;
    if (view.readOnly && param.written)
      return fail(PyExc_ValueError,
                  argName(param, i) +
                      " is read-only (a NumPy array with writeable=False), "
                      "but the kernel writes it");

    if (!onDevice(device, t.device.deviceType))
      return fail(PyExc_ValueError,
                  argName(param, i) + " is on " +
                      deviceName(t.device.deviceType) +
                      ", but the kernel was compiled for " +
                      jit::stringifyTarget(device).str());
    if (device != jit::Target::CPU) {
      auto where = [&](int32_t id) {
        return std::string(deviceName(t.device.deviceType)) + ":" +
               std::to_string(id);
      };
      if (first == params.size()) {
        first = i;
        deviceId = t.device.deviceId;
      } else if (t.device.deviceId != deviceId) {
        return fail(PyExc_ValueError,
                    argName(param, i) + " is on " + where(t.device.deviceId) +
                        ", but " + argName(params[first], first) + " is on " +
                        where(deviceId) +
                        " (a kernel's arrays must be on one device)");
      }
    }
    if (!matches(param.dtype, t.dtype))
      return fail(PyExc_TypeError, argName(param, i) + " expects " +
                                       dtypeName(param.dtype) + " elements, got " +
                                       describe(t.dtype));
    size_t rank = param.sizes.size();
    if (!param.isPointer && size_t(t.ndim) != rank)
      return fail(PyExc_ValueError,
                  argName(param, i) + " expects " + std::to_string(rank) +
                      " dimensions, got " + std::to_string(t.ndim) +
                      " (shape " + formatList(t.shape, t.ndim) + ")");

    std::vector<int64_t> sizes(rank), strides(rank);
    std::vector<int64_t> actualStrides(t.ndim);
    for (int64_t d = t.ndim - 1, s = 1; d >= 0; --d) {
      actualStrides[d] = t.strides ? t.strides[d] : s;
      s *= t.shape[d];
    }
    for (size_t d = 0; d < rank; ++d) {
      const Extent &e = param.sizes[d];
      switch (e.kind) {
      case Extent::Static:
        if (!param.isPointer && t.shape[d] != e.value)
          return fail(PyExc_ValueError,
                      argName(param, i) + " has shape " +
                          formatList(t.shape, t.ndim) + ", but dim " +
                          std::to_string(d) + " was compiled as " +
                          std::to_string(e.value));
        sizes[d] = e.value;
        break;
      case Extent::FromArray:
        sizes[d] = t.shape[d];
        break;
      case Extent::FromScalar:
        sizes[d] = scalarValue(e.value);
        break;
      default:
        sizes[d] = 0;
        break;
      }
      if (e.group < 0)
        continue;
      std::string where = "dim " + std::to_string(d) + " of " + argName(param, i);
      bool seen = false;
      for (auto &[group, first] : groups) {
        if (group != e.group)
          continue;
        seen = true;
        if (first.first != sizes[d])
          return fail(PyExc_ValueError,
                      where + " is " + std::to_string(sizes[d]) +
                          ", but the same dynamic size is " +
                          std::to_string(first.first) + " as " + first.second);
      }
      if (!seen)
        groups.push_back({e.group, {sizes[d], where}});
    }
    for (int64_t d = int64_t(rank) - 1, s = 1; d >= 0; --d) {
      const Extent &e = param.strides[d];
      int64_t rowMajor = s;
      s *= sizes[d];
      switch (e.kind) {
      case Extent::Contiguous:
        strides[d] = rowMajor;
        break;
      case Extent::Static:
        strides[d] = e.value;
        break;
      case Extent::FromArray:
        strides[d] = actualStrides[d];
        continue;
      case Extent::FromScalar:
        strides[d] = scalarValue(e.value);
        continue;
      }
      if (!param.isPointer && sizes[d] != 1 && actualStrides[d] != strides[d]) {
        if (e.kind == Extent::Contiguous)
          return fail(PyExc_ValueError,
                      argName(param, i) + " is not contiguous (strides " +
                          formatList(actualStrides.data(), t.ndim) +
                          "); pass a contiguous copy or annotate it "
                          "T.StridedTensor");
        return fail(PyExc_ValueError,
                    argName(param, i) + " has strides " +
                        formatList(actualStrides.data(), t.ndim) +
                        ", but stride " + std::to_string(d) +
                        " was compiled as " + std::to_string(e.value));
      }
    }

    char *data = static_cast<char *>(t.data) + t.byteOffset;
    if (failed(packed.setMemRef(i, data, toElementType(param.dtype), sizes,
                                strides, &error)))
      return library(i);
  }
  return true;
}
