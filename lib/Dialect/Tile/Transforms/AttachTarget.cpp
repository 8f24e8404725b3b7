//===- AttachTarget.cpp - tile-attach-target ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Target/Target.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEATTACHTARGET
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {
struct TileAttachTargetPass
    : public tile::impl::TileAttachTargetBase<TileAttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    if (!vendor.empty()) {
      std::string error;
      FailureOr<TargetInfo> info = TargetInfo::get(chip, std::nullopt, error);
      bool matches = succeeded(info) &&
                     ((vendor == "nvidia" && info->isNVIDIA()) ||
                      (vendor == "amd" && info->isAMD()));
      if (succeeded(info) && !matches) {
        module.emitError() << "chip '" << chip << "' is not "
                           << (vendor == "amd" ? "an AMD" : "an NVIDIA")
                           << " GPU; this pipeline compiles for "
                           << (vendor == "amd"
                                   ? "gfx9xx (gfx90a, gfx942, gfx950)"
                                   : "sm_70 .. sm_120")
                           << " chips";
        return signalPassFailure();
      }
    }
    // A module that names its own target for this chip keeps it (with its
    // features), unless features are given here.
    if (auto existing =
            module->getAttrOfType<TargetAttr>(TargetAttr::getAttrName());
        existing && existing.getChip() == chip && features.empty())
      return;
    ArrayAttr featureList;
    if (!features.empty()) {
      SmallVector<Attribute> names;
      for (const std::string &name : features)
        names.push_back(StringAttr::get(context, name));
      featureList = ArrayAttr::get(context, names);
    }
    auto target = TargetAttr::getChecked(
        [&] { return module.emitError(); }, context, StringRef(chip),
        featureList);
    if (!target)
      return signalPassFailure();
    module->setAttr(TargetAttr::getAttrName(), target);
  }
};
} // namespace
