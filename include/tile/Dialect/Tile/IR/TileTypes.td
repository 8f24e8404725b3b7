//===- TileTypes.td - tile dialect types -------------------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILETYPES_TD
#define TILE_DIALECT_TILE_IR_TILETYPES_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/BuiltinTypeInterfaces.td"

def Tile_FragmentType : Tile_Type<"Fragment", "fragment",
    [ShapedTypeInterface]> {
  let summary = "a register tile spread over the threads of a block";
  let description = [{
    A fragment is a statically shaped tile held in registers. Every element
    is owned by one or more threads of the block (a fragment layout says
    which thread and which register slot); the type itself only gives the
    logical shape and element type, like `memref` without a memory space.

    ```mlir
    %acc = tile.fragment : !tile.fragment<128x128xf32>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let assemblyFormat = "`<` custom<Shape>($shape, $elementType) `>`";
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
                                        "::mlir::Type":$elementType), [{
      return $_get(elementType.getContext(), shape, elementType);
    }]>
  ];
  let extraClassDeclaration = [{
    // ShapedTypeInterface: fragments are always ranked and static.
    bool hasRank() const { return true; }
    ::mlir::ShapedType cloneWith(std::optional<::llvm::ArrayRef<int64_t>> shape,
                                 ::mlir::Type elementType) const;
  }];
}

def Tile_BarrierType : Tile_Type<"Barrier", "barrier"> {
  let summary = "barriers in shared memory that threads arrive at and wait on";
  let description = [{
    `count` barriers of the block (TileLang's `T.alloc_barrier`, NVIDIA's
    mbarriers), made by `tile.alloc_barrier`. Each has an arrival count: a
    phase completes when that many arrivals (`tile.barrier_arrive`) and the
    copies that signal it (`tile.copy ... barrier(...)`) are done, and the
    next phase begins. `tile.barrier_wait` waits for the phase of a parity.

    ```mlir
    %bars = tile.alloc_barrier [128, 128] : !tile.barrier<2>
    ```
  }];
  let parameters = (ins "int64_t":$count);
  let assemblyFormat = "`<` $count `>`";
  let genVerifyDecl = 1;
}

#endif // TILE_DIALECT_TILE_IR_TILETYPES_TD
