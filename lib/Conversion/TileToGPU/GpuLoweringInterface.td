//===- GpuLoweringInterface.td - How a tile op is lowered --*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_GPULOWERINGINTERFACE_TD
#define TILE_LIB_CONVERSION_TILETOGPU_GPULOWERINGINTERFACE_TD

include "mlir/IR/OpBase.td"

def GpuLoweringOpInterface : OpInterface<"GpuLoweringOpInterface"> {
  let cppNamespace = "::mlir::tile::gpu_lowering";
  let description = [{
    How a tile op of a kernel becomes per-thread GPU code, the counterpart
    of LayoutInferenceOpInterface for convert-tile-to-gpu. Before any IR
    changes, the KernelPlan asks each op to `plan` itself (in post-order: a
    loop's ops are planned before the loop) and how much shared scratch it
    needs (`getScratch`); then the kernel's ops are lowered in program
    order, each by its `lower`, with the KernelContext's storage for the
    buffers. The dialect's ops get their models from the TileToGPU library
    (registerGpuLoweringModels), one file per op family; an op without the
    interface cannot be lowered to the GPU.
  }];
  let methods = [
    InterfaceMethod<[{
        Records in `plan` what the op's lowering decides ahead (a gemm's
        instruction, a fragment copy's transfer, a loop's pipeline); fails
        with a diagnostic on the op when it cannot be planned.
      }], "::mlir::LogicalResult", "plan",
      (ins "::mlir::tile::gpu_lowering::KernelPlan &":$plan), "",
      [{ return ::mlir::success(); }]>,
    InterfaceMethod<[{
        The shared scratch the op needs (none by default); `staging`: when
        the block's shared memory allows the optional staging of stores.
      }], "::mlir::tile::gpu_lowering::ScratchRequest", "getScratch",
      (ins "const ::mlir::tile::gpu_lowering::KernelPlan &":$plan,
           "bool":$staging), "",
      [{ return {}; }]>,
    InterfaceMethod<[{
        Replaces the op with its per-thread code at the rewriter's insertion
        point (the op); fails with a diagnostic on the op when it cannot.
      }], "::mlir::LogicalResult", "lower",
      (ins "::mlir::tile::gpu_lowering::KernelContext &":$context,
           "::mlir::PatternRewriter &":$rewriter)>
  ];
}

#endif // TILE_LIB_CONVERSION_TILETOGPU_GPULOWERINGINTERFACE_TD
