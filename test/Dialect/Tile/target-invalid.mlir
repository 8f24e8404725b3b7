// RUN: tile-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{unknown chip 'sm_1'; expected one of}}
module attributes {tile.target = #tile.target<"sm_1">} {
}

// -----

// expected-error @+1 {{feature 'tma' does not exist on sm_80}}
module attributes {tile.target = #tile.target<"sm_80", features = ["tma"]>} {
}

// -----

// expected-error @+1 {{target features must be strings, got [1]}}
module attributes {tile.target = #tile.target<"sm_80", features = [1]>} {
}

// -----

// expected-error @+1 {{'tile.target' must be a #tile.target, got "sm_80"}}
module attributes {tile.target = "sm_80"} {
}
