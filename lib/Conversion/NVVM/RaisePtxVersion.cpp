//===- RaisePtxVersion.cpp - a module's PTX ISA version -------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Gives a kernel module whose inline PTX needs a newer PTX ISA than its
// NVVM target asks for (ops marked `tile.ptx_version` by the GPU lowering)
// that version in its target's features.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_RAISEPTXVERSION
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

/// The mark the GPU lowering puts on ops that need a PTX ISA version.
static constexpr StringLiteral kPtxVersion = "tile.ptx_version";

/// `features` asking for PTX ISA `version` (`+ptxNN`) at least.
static std::string raisePtx(StringRef features, int64_t version) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  std::string result;
  bool found = false;
  for (StringRef part : parts) {
    int64_t current;
    if (part.consume_front("+ptx") && !part.getAsInteger(10, current)) {
      found = true;
      current = std::max(current, version);
      result += (result.empty() ? "" : ",") + ("+ptx" + Twine(current)).str();
      continue;
    }
    result += (result.empty() ? "" : ",") + part.str();
  }
  if (!found)
    result += (result.empty() ? "" : ",") + ("+ptx" + Twine(version)).str();
  return result;
}

namespace {
struct RaisePtxVersion : tile::impl::RaisePtxVersionBase<RaisePtxVersion> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    int64_t needed = 0;
    module.walk([&](Operation *op) {
      if (auto version = op->getAttrOfType<IntegerAttr>(kPtxVersion)) {
        needed = std::max(needed, version.getInt());
        op->removeAttr(kPtxVersion);
      }
    });
    ArrayAttr targets = module.getTargetsAttr();
    if (!needed || !targets)
      return;
    SmallVector<Attribute> raised;
    for (Attribute target : targets) {
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target))
        target = NVVM::NVVMTargetAttr::get(
            &getContext(), nvvm.getO(), nvvm.getTriple(), nvvm.getChip(),
            raisePtx(nvvm.getFeatures(), needed), nvvm.getFlags(),
            nvvm.getLink(), nvvm.getVerifyTarget());
      raised.push_back(target);
    }
    module.setTargetsAttr(ArrayAttr::get(&getContext(), raised));
  }
};
} // namespace
