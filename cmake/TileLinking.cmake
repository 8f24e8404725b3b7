#===- cmake/TileLinking.cmake - how tile links against MLIR/LLVM ----------===#
#
# Debian ships libMLIR.so and libLLVM.so. Linking those keeps links fast on a
# small machine: every tile library and tool links through TILE_MLIR_LIBS.
#
#===------------------------------------------------------------------------===#
set(TILE_MLIR_LIBS MLIR LLVM)
