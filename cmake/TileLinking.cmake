#===- cmake/TileLinking.cmake - how tile links against MLIR/LLVM ----------===#
#
# By default everything links Debian's libMLIR.so and libLLVM.so, which
# keeps links fast on a small machine.
#
# With TILE_STATIC_LINK=ON (the device bundle), libraries link nothing and
# executables link the static MLIR/LLVM archives in one group, with
# --gc-sections and a static C++ runtime, so that the result needs only
# libc, libm, libz and libzstd on the machine it runs on (tinfo is linked
# but --as-needed drops it).
#
#===------------------------------------------------------------------------===#
option(TILE_STATIC_LINK "Link executables against static MLIR/LLVM" OFF)

if(TILE_STATIC_LINK)
  # Debian's LLVMConfig asks add_llvm_* to link libLLVM.so; not here.
  set(LLVM_LINK_LLVM_DYLIB OFF)
  set(TILE_MLIR_LIBS "")
  file(GLOB TILE_STATIC_MLIR ${LLVM_LIBRARY_DIR}/libMLIR*.a)
  file(GLOB TILE_STATIC_LLVM ${LLVM_LIBRARY_DIR}/libLLVM*.a)
  list(FILTER TILE_STATIC_MLIR EXCLUDE REGEX "libMLIR(ExecutionEngineShared|_c_runner)")
  set(TILE_EXE_LIBS
    -Wl,--start-group ${TILE_STATIC_MLIR} ${TILE_STATIC_LLVM} -Wl,--end-group
    z zstd tinfo ${CMAKE_DL_LIBS} pthread)
  add_link_options(-Wl,--gc-sections -Wl,--as-needed -static-libstdc++
                   -static-libgcc)
else()
  set(TILE_MLIR_LIBS MLIR LLVM)
  set(TILE_EXE_LIBS MLIR LLVM)
endif()
