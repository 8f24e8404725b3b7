//===- TileDialect.td - the tile dialect -------------------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILE_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tile-level GPU kernel programming";
  let description = [{
    The `tile` dialect expresses GPU kernels with tile-level operations, in the
    model of TileLang: a `tile.kernel` launches a grid of thread blocks; inside,
    a kernel copies tiles between global memory, shared memory and register
    fragments, multiplies tiles, reduces them and applies elementwise bodies.
    The compiler decides how the block's threads share each tile: layouts are
    attributes on the allocating operations, given by the user or inferred.

    Buffers have reference semantics. Global tensors are `memref`s, shared
    buffers are `memref`s in `#gpu.address_space<workgroup>`, and fragments
    are values of type `!tile.fragment`, register tiles spread over the
    block's threads.
  }];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // TILE_DIALECT_TILE_IR_TILEDIALECT_TD
