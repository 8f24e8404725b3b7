//===- TileAttrDefs.td - tile dialect attributes -----------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEATTRDEFS_TD
#define TILE_DIALECT_TILE_IR_TILEATTRDEFS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "tile/Dialect/Tile/IR/TileEnums.td"
include "tile/Dialect/Tile/IR/TileInterfaces.td"

class Tile_LayoutAttr<string name, string attrMnemonic>
    : Tile_Attr<name, attrMnemonic,
                [DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface>]>;

//===----------------------------------------------------------------------===//
// Shared-memory layouts
//===----------------------------------------------------------------------===//

def Tile_LinearLayoutAttr : Tile_LayoutAttr<"LinearLayout", "linear"> {
  let summary = "row-major shared-memory layout";
  let description = [{
    Elements are stored in row-major (C) order with no padding or swizzle:
    the offset of `[i, j]` in an `R x C` buffer is `i * C + j`.

    ```mlir
    %s = tile.alloc_shared layout(#tile.linear) : memref<64x32xf16, #gpu.address_space<workgroup>>
    ```
  }];
}

def Tile_PaddedLayoutAttr : Tile_LayoutAttr<"PaddedLayout", "padded"> {
  let summary = "row-major shared-memory layout with padded rows";
  let description = [{
    Row-major order with `padding` unused elements after each row of the
    innermost dimension, which skews rows across shared-memory banks:
    the offset of `[i, j]` in an `R x C` buffer is `i * (C + padding) + j`.
    Needs a buffer of rank 2 or more.

    ```mlir
    %s = tile.alloc_shared layout(#tile.padded<8>) : memref<64x32xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let parameters = (ins "int64_t":$padding);
  let assemblyFormat = "`<` $padding `>`";
  let genVerifyDecl = 1;
}

def Tile_SwizzleLayoutAttr : Tile_LayoutAttr<"SwizzleLayout", "swizzle"> {
  let summary = "XOR-swizzled shared-memory layout (32/64/128-byte modes)";
  let description = [{
    The swizzle modes of TMA descriptors and wgmma shared-memory
    descriptors. The innermost dimension is cut into panels `mode` bytes
    wide; panels are stored one after another, each row-major. Inside a
    panel, the 16-byte chunk index of an element is XOR-ed with its row
    index modulo `mode / 16`, so eight consecutive rows reading the same
    column hit distinct banks. The innermost dimension must span a multiple
    of `mode` bytes; the buffer needs rank 2 or more.

    ```mlir
    %s = tile.alloc_shared layout(#tile.swizzle<128>) : memref<128x64xf16, #gpu.address_space<workgroup>>
    ```
  }];
  let parameters = (ins "int64_t":$mode);
  let assemblyFormat = "`<` $mode `>`";
  let genVerifyDecl = 1;
}

def Tile_SharedLayoutAttr : Tile_LayoutAttr<"SharedLayout", "shared"> {
  let summary = "explicit shared-memory layout: factors with strides";
  let description = [{
    The general shared-memory layout. Each logical dimension is a list of
    factors, outermost first, written `size:stride`; the element offset is
    the sum over factors of `digit * stride`. An optional XOR swizzle in
    bytes (32, 64 or 128) is applied to the offset last. For example a
    128x128 f16 tile stored as two 64-column panels:

    ```mlir
    %s = tile.alloc_shared layout(#tile.shared<[[128:64], [2:8192, 64:1]], swizzle 128>)
        : memref<128x128xf16, #gpu.address_space<workgroup>>
    ```
    The layout must be injective.
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::tile::LayoutFactor">:$factors,
    ArrayRefParameter<"int64_t">:$factorsPerDim,
    "int64_t":$swizzle);
  let extraClassDeclaration = [{
    /// The factors of each logical dim, outermost first.
    ::llvm::SmallVector<::mlir::tile::Layout::DimFactors> getDims() const;
  }];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Fragment layouts
//===----------------------------------------------------------------------===//

def Tile_FragmentLayoutAttr : Tile_LayoutAttr<"FragmentLayout", "fragment"> {
  let summary = "register fragment layout: logical index to (thread, slot)";
  let description = [{
    Places each element of a fragment in a register slot of one thread (or,
    with replication, of several threads). Each logical dimension is a list
    of factors, outermost first, written `size:tSTRIDE` (the digit adds
    `digit * STRIDE` to the owning thread) or `size:sSTRIDE` (to the slot).
    `replicate [n:tSTRIDE, ...]` adds copies: copy `c` of an element lives
    on thread `thread + c * STRIDE`, same slot.

    The f32 accumulator of one `mma.sync.m16n8k16` (thread `4 * (row % 8) +
    (col / 2) % 4`, slot `2 * (row / 8) + col % 2`):

    ```mlir
    %c = tile.fragment layout(#tile.fragment<[[2:s2, 8:t4], [4:t1, 2:s1]]>)
        : !tile.fragment<16x8xf32>
    ```
    No two elements (nor two copies) may share a (thread, slot).
  }];
  let parameters = (ins
    ArrayRefParameter<"::mlir::tile::LayoutFactor">:$factors,
    ArrayRefParameter<"int64_t">:$factorsPerDim,
    ArrayRefParameter<"::mlir::tile::LayoutFactor">:$replicate);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The factors of each logical dim, outermost first.
    ::llvm::SmallVector<::mlir::tile::Layout::DimFactors> getDims() const;
    /// The logical shape this layout covers.
    ::llvm::SmallVector<int64_t> getShape() const;
    /// Number of copies of each element.
    int64_t getNumReplicas() const;
    /// The layout as a map (logical..., replica) -> (thread, slot).
    ::mlir::tile::Layout toLayout() const;
    /// The attribute for a map (logical..., replica) -> (thread, slot).
    static FragmentLayoutAttr get(::mlir::MLIRContext *context,
                                  const ::mlir::tile::Layout &layout);
    /// Threads needed to hold the fragment (1 + the largest thread id).
    int64_t getThreadExtent() const;
    /// Register slots each thread needs (1 + the largest slot).
    int64_t getSlotExtent() const;
  }];
}

//===----------------------------------------------------------------------===//
// Kernel attributes
//===----------------------------------------------------------------------===//

def Tile_RasterAttr : Tile_Attr<"Raster", "raster"> {
  let summary = "block rasterization (TileLang's T.use_swizzle)";
  let description = [{
    Reorders the blocks of a 2-d grid so that consecutive blocks work on
    nearby tiles and share them in L2. Blocks are launched in panels of
    `panel` rows (order `row`) or columns (order `column`): the launch index
    walks down a panel before moving to the next, and the block ids seen by
    the kernel body are the rasterized ones.

    ```mlir
    tile.kernel grid(%bx, %by) in (8, 16) threads(128) raster(#tile.raster<4, row>) { ... }
    ```
  }];
  let parameters = (ins "int64_t":$panel,
    DefaultValuedParameter<"::mlir::tile::RasterOrder",
                           "::mlir::tile::RasterOrder::Row">:$order);
  let assemblyFormat = "`<` $panel (`,` $order^)? `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Target
//===----------------------------------------------------------------------===//

def Tile_TargetAttr : Tile_Attr<"Target", "target"> {
  let summary = "the chip tile kernels are compiled for";
  let description = [{
    Describes the target once for the whole module: it sits on the module as
    `tile.target` (written by `tile-attach-target` or the `tile-to-*`
    pipelines), and layout inference and the lowerings read it to choose
    their strategies. `chip` is `sm_80`, `sm_90a`, `gfx942`, `host`, ...;
    from it follow the warp size, the shared-memory and register limits and
    the instruction families that exist. `features`, when present, restricts
    the instruction families the compiler may use to those listed (each must
    exist on the chip): `cp.async`, `ldmatrix`, `mma.sync`, `tma`, `wgmma`,
    `mfma`. Leaving one out forces the next-best strategy (e.g. sm_90a
    without `wgmma` and `tma` takes the Ampere-class path).

    ```mlir
    module attributes {tile.target = #tile.target<"sm_90a">} {}
    module attributes {tile.target = #tile.target<"sm_90a", features = ["cp.async", "ldmatrix", "mma.sync"]>} {}
    ```
  }];
  let parameters = (ins StringRefParameter<"chip name">:$chip,
                        OptionalParameter<"::mlir::ArrayAttr">:$features);
  let assemblyFormat = "`<` $chip (`,` `features` `=` $features^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// What the target is and allows (the attribute is verified, so this
    /// succeeds).
    ::mlir::tile::TargetInfo getInfo() const;
    /// The name modules carry the attribute under.
    static ::llvm::StringRef getAttrName() { return "tile.target"; }
  }];
}

#endif // TILE_DIALECT_TILE_IR_TILEATTRDEFS_TD
