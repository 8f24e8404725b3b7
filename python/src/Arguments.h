//===- Arguments.h - Python arguments to packed kernel calls ----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A kernel's parameters as the Python frontend describes them once, and the
// per-call work: read each array argument through DLPack (torch, NumPy, any
// producer), check it against its parameter (with the Python parameter's
// name in every message, and the frontend's own rules: shared dynamic
// sizes, T.ptr sizes from scalar parameters), and fill the JIT library's
// PackedArguments, the launch path tile-run and the C API share.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PYTHON_ARGUMENTS_H
#define TILE_PYTHON_ARGUMENTS_H

#include <Python.h>

#include "tile/JIT/Compiler.h"
#include "tile/JIT/PackedArguments.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::tile::python {

/// Element types the frontend passes (the values are the frontend's codes).
enum class DType : int {
  F16 = 0, BF16, F32, F64, F8E4M3, F8E5M2, Bool, I8, I16, I32, I64, U8,
  Index, F8E4M3FNUZ, F8E5M2FNUZ
};
const char *dtypeName(DType type);
int64_t dtypeBytes(DType type);

/// Where a memref size or stride comes from.
struct Extent {
  enum Kind : int {
    Static = 0,    // `value`; an array's own extent must equal it
    FromArray = 1, // read from the array (dynamic)
    FromScalar = 2, // the value of scalar parameter #value
    Contiguous = 3, // stride: row-major from the sizes (array must agree)
  };
  Kind kind = Static;
  int64_t value = 0;
  /// Dynamic sizes with the same group must be equal (T.dyn["K"] twice).
  int group = -1;
};

struct Param {
  std::string name;
  bool isScalar = false;
  DType dtype = DType::F32;
  /// Memrefs: one entry per dim.
  std::vector<Extent> sizes, strides;
  /// T.ptr + T.match_buffer: the array's own shape is not checked.
  bool isPointer = false;
  /// The kernel may write the array (the compiled signature's
  /// jit::Parameter::written): a read-only array is refused.
  bool written = true;
};

/// The JIT library's element type of a frontend dtype.
jit::ElementType toElementType(DType type);

/// Checks `args` against `params` and fills `packed`; on a GPU, sets
/// `deviceId` to the ordinal of the device the arrays are on (left alone
/// when there are none). On a mismatch, sets a Python exception (TypeError
/// or ValueError naming the argument; arrays on two devices name both) and
/// returns false.
bool packArguments(const std::vector<Param> &params, jit::Target device,
                   int &deviceId, PyObject *const *args, size_t nargs,
                   jit::PackedArguments &packed);

/// Lets calls read torch tensors through torch's C-level DLPack export, or
/// its DLPack exchange API where torch has one (no capsule per tensor).
void setTorch(PyObject *tensorType, PyObject *toDlpack);
/// Drops what setTorch holds (at interpreter exit: references held past
/// it would keep torch's modules, and through them tile's, alive).
void clearTorch();

/// Torch's current stream on CUDA device `deviceId` through its DLPack
/// exchange API; false when torch has none (then ask its Python getter).
bool getTorchStream(int deviceId, void **stream);

} // namespace mlir::tile::python

#endif // TILE_PYTHON_ARGUMENTS_H
