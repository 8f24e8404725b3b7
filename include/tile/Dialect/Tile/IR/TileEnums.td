//===- TileEnums.td - tile dialect enumerations ------------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_IR_TILEENUMS_TD
#define TILE_DIALECT_TILE_IR_TILEENUMS_TD

include "tile/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/EnumAttr.td"

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "reduction of a tile dim", [
    I32EnumAttrCase<"Sum", 0, "sum">,
    I32EnumAttrCase<"Max", 1, "max">,
    I32EnumAttrCase<"Min", 2, "min">,
    I32EnumAttrCase<"AbsMax", 3, "absmax">,
    I32EnumAttrCase<"AbsSum", 4, "abssum">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind"> {
  let assemblyFormat = "$value";
}

def Tile_WarpPolicy : I32EnumAttr<"WarpPolicy",
    "how a gemm divides the block's warps over its C tile", [
    I32EnumAttrCase<"Square", 0, "square">,
    I32EnumAttrCase<"FullRow", 1, "full_row">,
    I32EnumAttrCase<"FullCol", 2, "full_col">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_WarpPolicyAttr : EnumAttr<Tile_Dialect, Tile_WarpPolicy, "warp_policy"> {
  let assemblyFormat = "$value";
}

def Tile_RasterOrder : I32EnumAttr<"RasterOrder",
    "the grid dim along which rasterization panels run", [
    I32EnumAttrCase<"Row", 0, "row">,
    I32EnumAttrCase<"Column", 1, "column">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_RasterOrderAttr : EnumAttr<Tile_Dialect, Tile_RasterOrder, "raster_order"> {
  let assemblyFormat = "$value";
}

def Tile_ThreadUnit : I32EnumAttr<"ThreadUnit",
    "what a thread index counts in a block", [
    I32EnumAttrCase<"Thread", 0, "thread">,
    I32EnumAttrCase<"Lane", 1, "lane">,
    I32EnumAttrCase<"Warp", 2, "warp">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_ThreadUnitAttr : EnumAttr<Tile_Dialect, Tile_ThreadUnit, "thread_unit"> {
  let assemblyFormat = "$value";
}

def Tile_MemoryOrder : I32EnumAttr<"MemoryOrder",
    "how a fence orders a thread's memory accesses", [
    I32EnumAttrCase<"Acquire", 0, "acquire">,
    I32EnumAttrCase<"Release", 1, "release">,
    I32EnumAttrCase<"AcqRel", 2, "acq_rel">,
    I32EnumAttrCase<"SeqCst", 3, "seq_cst">
  ]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}
def Tile_MemoryOrderAttr : EnumAttr<Tile_Dialect, Tile_MemoryOrder, "memory_order"> {
  let assemblyFormat = "$value";
}

#endif // TILE_DIALECT_TILE_IR_TILEENUMS_TD
