//===- Signature.cpp - What a compiled function takes ---------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Signature.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::tile::jit;

std::string mlir::tile::jit::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s;
}

/// Whether an op may write `memref` or a view of it: one that declares a
/// write (or free) of it, or one whose effects are unknown (a call, say).
static bool mayWrite(Value memref) {
  llvm::SetVector<Value> views;
  views.insert(memref);
  for (unsigned i = 0; i < views.size(); ++i) {
    Value value = views[i];
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == value) {
        for (Value result : user->getResults())
          views.insert(result);
        continue;
      }
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) {
        if (user->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          continue; // its nested ops are this walk's own uses
        return true;
      }
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffectsOnValue(value, instances);
      for (const MemoryEffects::EffectInstance &instance : instances)
        if (isa<MemoryEffects::Write, MemoryEffects::Free>(
                instance.getEffect()))
          return true;
    }
  }
  return false;
}

std::string Signature::describeArgument(unsigned index) const {
  return "argument #" + std::to_string(index) + " (" +
         parameters[index].typeName + "): ";
}

FailureOr<Signature> Signature::get(FunctionOpInterface function,
                                    std::string &error) {
  Signature signature;
  signature.name = function.getName().str();
  if (function.getNumResults() != 0) {
    error = "@" + signature.name +
            " returns values; compiled functions write their results into "
            "memref arguments";
    return failure();
  }
  ArrayRef<Type> types = function.getArgumentTypes();
  for (unsigned index = 0; index < types.size(); ++index) {
    Type type = types[index];
    Parameter parameter;
    parameter.typeName = llvm::formatv("{0}", type).str();
    auto where = [&] {
      return "argument #" + std::to_string(index) + " (" + parameter.typeName +
             "): ";
    };
    Type elementType = type;
    if (auto memref = dyn_cast<MemRefType>(type)) {
      if (memref.getMemorySpace()) {
        error = where() + "only memrefs in the default memory space can be "
                          "passed";
        return failure();
      }
      parameter.kind = Parameter::Kind::MemRef;
      parameter.shape.assign(memref.getShape().begin(),
                             memref.getShape().end());
      parameter.rowMajor = memref.getLayout().isIdentity();
      if (failed(memref.getStridesAndOffset(parameter.strides,
                                            parameter.offset))) {
        error = where() + "the layout is not strided";
        return failure();
      }
      elementType = memref.getElementType();
      if (!function.isExternal())
        parameter.written = mayWrite(function.getArgument(index));
    } else if (!type.isIntOrIndexOrFloat()) {
      error = where() + "this type cannot be passed";
      return failure();
    }
    std::optional<ElementType> element = getElementType(elementType);
    if (!element) {
      error = where() + "element type " +
              llvm::formatv("{0}", elementType).str() + " cannot be passed";
      return failure();
    }
    parameter.elementType = *element;
    signature.parameters.push_back(std::move(parameter));
  }
  return signature;
}
