//===- PackedArguments.cpp - The arguments of one call --------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/PackedArguments.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tile::jit;

static std::string formatList(ArrayRef<int64_t> values) {
  std::string s = "[";
  for (auto [i, value] : llvm::enumerate(values)) {
    s += i ? ", " : "";
    s += ShapedType::isDynamic(value) ? "?" : std::to_string(value);
  }
  return s + "]";
}

PackedArguments::PackedArguments(const Signature &signature)
    : signature(&signature) {
  unsigned total = 0;
  for (const Parameter &parameter : signature.parameters) {
    firstSlots.push_back(total);
    total += parameter.getNumSlots();
  }
  slots.assign(total, 0);
  for (int64_t &slot : slots)
    pointers.push_back(&slot);
}

LogicalResult PackedArguments::fail(unsigned index, const Twine &message,
                                    std::string *error) const {
  if (error) {
    if (index < signature->parameters.size())
      *error = signature->describeArgument(index) + message.str();
    else
      *error = message.str();
  }
  return failure();
}

LogicalResult PackedArguments::setMemRef(unsigned index, void *data,
                                         ElementType type,
                                         ArrayRef<int64_t> sizes,
                                         ArrayRef<int64_t> strides,
                                         std::string *error) {
  const std::vector<Parameter> &parameters = signature->parameters;
  if (index >= parameters.size())
    return fail(index,
                "argument index " + Twine(index) + " is out of range: @" +
                    signature->name + " has " + Twine(parameters.size()) +
                    " arguments",
                error);
  const Parameter &parameter = parameters[index];
  if (!parameter.isMemRef())
    return fail(index, "expects a scalar, got an array", error);
  int64_t rank = parameter.getRank();
  if (int64_t(sizes.size()) != rank)
    return fail(index,
                "rank " + Twine(sizes.size()) +
                    " does not match the parameter's rank " + Twine(rank),
                error);
  bool empty = false;
  for (int64_t d = 0; d < rank; ++d) {
    if (sizes[d] < 0)
      return fail(index, "negative size in shape " + formatList(sizes), error);
    if (!ShapedType::isDynamic(parameter.shape[d]) &&
        parameter.shape[d] != sizes[d])
      return fail(index,
                  "shape " + formatShape(sizes) +
                      " does not match the parameter's static shape",
                  error);
    empty |= sizes[d] == 0;
  }
  if (type != parameter.elementType)
    return mismatch(index, type, parameter.elementType, error);
  if (!strides.empty() && int64_t(strides.size()) != rank)
    return fail(
        index, Twine(strides.size()) + " strides given for rank " + Twine(rank),
        error);

  int64_t *slot = &slots[firstSlots[index]];
  int64_t offset =
      ShapedType::isDynamic(parameter.offset) ? 0 : parameter.offset;
  // The descriptor's aligned pointer plus its offset is the first element.
  auto *aligned =
      static_cast<char *>(data) - offset * int64_t(getByteWidth(type));
  int64_t address = reinterpret_cast<intptr_t>(aligned);
  slot[0] = address;
  slot[1] = address;
  slot[2] = offset;
  int64_t rowMajor = 1;
  for (int64_t d = rank - 1; d >= 0; --d) {
    slot[3 + d] = sizes[d];
    int64_t expected = parameter.rowMajor ? rowMajor : parameter.strides[d];
    int64_t given = strides.empty() ? rowMajor : strides[d];
    rowMajor *= sizes[d];
    // A stride of a dimension of size 1 (or of an empty array) is never
    // used: take the layout's.
    bool matters = sizes[d] != 1 && !empty;
    if (matters && !ShapedType::isDynamic(expected) && given != expected) {
      SmallVector<int64_t> givenStrides(strides);
      if (givenStrides.empty())
        for (int64_t e = rank - 1, s = 1; e >= 0; s *= sizes[e], --e)
          givenStrides.insert(givenStrides.begin(), s);
      if (parameter.rowMajor)
        return fail(index,
                    "strides " + formatList(givenStrides) +
                        " are not row-major; the parameter's layout is the "
                        "identity",
                    error);
      return fail(index,
                  "strides " + formatList(givenStrides) +
                      " do not match the parameter's " +
                      formatList(parameter.strides),
                  error);
    }
    slot[3 + rank + d] =
        matters || ShapedType::isDynamic(expected) ? given : expected;
  }
  return success();
}

FailureOr<ElementType> PackedArguments::checkScalar(unsigned index,
                                                    std::string *error) const {
  const std::vector<Parameter> &parameters = signature->parameters;
  if (index >= parameters.size()) {
    (void)fail(index,
               "argument index " + Twine(index) + " is out of range: @" +
                   signature->name + " has " + Twine(parameters.size()) +
                   " arguments",
               error);
    return failure();
  }
  if (parameters[index].isMemRef()) {
    (void)fail(index, "expects an array, got a scalar", error);
    return failure();
  }
  return parameters[index].elementType;
}

LogicalResult PackedArguments::mismatch(unsigned index, ElementType given,
                                        ElementType expected,
                                        std::string *error) const {
  return fail(index,
              "element type " + stringifyElementType(given) +
                  " does not match the parameter's " +
                  stringifyElementType(expected),
              error);
}

void *PackedArguments::clearScalar(unsigned index) {
  int64_t &slot = slots[firstSlots[index]];
  slot = 0;
  return &slot;
}

LogicalResult PackedArguments::setScalar(unsigned index, ElementType type,
                                         const void *value,
                                         std::string *error) {
  FailureOr<ElementType> expected = checkScalar(index, error);
  if (failed(expected))
    return failure();
  if (type != *expected)
    return mismatch(index, type, *expected, error);
  std::memcpy(clearScalar(index), value, getByteWidth(type));
  return success();
}

LogicalResult PackedArguments::setInteger(unsigned index, int64_t value,
                                          std::string *error) {
  FailureOr<ElementType> type = checkScalar(index, error);
  if (failed(type))
    return failure();
  void *slot = clearScalar(index);
  if (isFloat(*type)) {
    storeElement(*type, slot, double(value));
    return success();
  }
  if (*type == ElementType::I1)
    value = value != 0;
  // Little-endian: the low bytes are the truncated value.
  std::memcpy(slot, &value, getByteWidth(*type));
  return success();
}

LogicalResult PackedArguments::setFloat(unsigned index, double value,
                                        std::string *error) {
  FailureOr<ElementType> type = checkScalar(index, error);
  if (failed(type))
    return failure();
  if (!isFloat(*type))
    return fail(index,
                "expects an integer (" + stringifyElementType(*type) +
                    "), got a floating-point value",
                error);
  storeElement(*type, clearScalar(index), value);
  return success();
}
