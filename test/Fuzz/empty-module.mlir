// Found by all three fuzz targets on the empty input: a module without tile
// ops crashed tile-attach-target ("storage uniquer isn't initialized"):
// #tile.target belongs to the tile dialect, which nothing had loaded.
// RUN: tile-opt %s --tile-attach-target=chip=sm_80 | FileCheck %s
// RUN: tile-opt %s --tile-to-nvvm=format=isa | FileCheck %s
// RUN: tile-opt %s --tile-to-cpu | FileCheck %s --check-prefix=CPU
// CHECK: module attributes {tile.target = #tile.target<"sm_80">}
// CPU: module attributes {tile.target = #tile.target<"host">}
