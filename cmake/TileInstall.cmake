#===- cmake/TileInstall.cmake - what `cmake --install` puts where ---------===#
#
# Included last by the top-level CMakeLists.txt. Installs the headers (with
# the generated .inc files), every tile library (add_mlir_library lists them
# in MLIR_ALL_LIBS, beside MLIR's own; test-only ones are left out), the GPU
# runtimes and the C API, and lib/cmake/tile/TileConfig.cmake with the exported targets, so
# that another CMake project can `find_package(Tile)` and link them:
#
#   cmake --install build --prefix /opt/tile
#   cmake -S my-project -B my-build -DCMAKE_PREFIX_PATH=/opt/tile
#
# The targets are exported without a namespace, as MLIR's and CIRCT's are
# (TileDialect, TileInit, TileJIT, TileCudaRuntime, TileC, ...).
#
#===------------------------------------------------------------------------===#
set(TILE_INSTALL_CMAKE_DIR lib${LLVM_LIBDIR_SUFFIX}/cmake/tile)
set(TILE_INSTALL_INCLUDE_DIR include)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tile
                  ${PROJECT_SOURCE_DIR}/include/tile-c
  DESTINATION include
  COMPONENT tile-headers
  FILES_MATCHING
  PATTERN "*.h"
  PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/tile
  DESTINATION include
  COMPONENT tile-headers
  FILES_MATCHING
  PATTERN "*.inc"
  PATTERN "CMakeFiles" EXCLUDE
  PATTERN "Config" EXCLUDE)

get_property(all_libraries GLOBAL PROPERTY MLIR_ALL_LIBS)
set(tile_libraries)
foreach(target ${all_libraries} TileCudaRuntime TileRocmRuntime TileC)
  if(TARGET ${target} AND target MATCHES "^Tile" AND NOT target MATCHES "Test")
    get_target_property(imported ${target} IMPORTED)
    if(NOT imported)
      list(APPEND tile_libraries ${target})
    endif()
  endif()
endforeach()
list(REMOVE_DUPLICATES tile_libraries)
install(TARGETS ${tile_libraries}
  EXPORT TileTargets
  COMPONENT tile-libraries
  ARCHIVE DESTINATION lib${LLVM_LIBDIR_SUFFIX}
  LIBRARY DESTINATION lib${LLVM_LIBDIR_SUFFIX}
  INCLUDES DESTINATION include)
install(EXPORT TileTargets
  DESTINATION ${TILE_INSTALL_CMAKE_DIR}
  COMPONENT tile-cmake)

foreach(feature CUDA_RUNTIME ROCM_RUNTIME C_API)
  if(TILE_HAS_${feature})
    set(TILE_HAS_${feature}_BOOL ON)
  else()
    set(TILE_HAS_${feature}_BOOL OFF)
  endif()
endforeach()

include(CMakePackageConfigHelpers)
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/TileConfig.cmake.in
  ${PROJECT_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileConfig.cmake
  INSTALL_DESTINATION ${TILE_INSTALL_CMAKE_DIR}
  PATH_VARS TILE_INSTALL_INCLUDE_DIR)
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileConfigVersion.cmake
  VERSION ${TILE_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileConfig.cmake
  ${PROJECT_BINARY_DIR}/${TILE_INSTALL_CMAKE_DIR}/TileConfigVersion.cmake
  DESTINATION ${TILE_INSTALL_CMAKE_DIR}
  COMPONENT tile-cmake)

# test/Embedding/install.test installs the build tree: everything installed
# must be built first.
if(TARGET check-tile)
  add_dependencies(check-tile ${tile_libraries})
endif()
