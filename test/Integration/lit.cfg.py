# -*- Python -*-
# GPU integration tests: tile-run on a real GPU, checked against numpy.
#
# A suite of its own so that it runs where no build tree exists (the GPU
# machine runs the device bundle): tile-run is in the lit parameter
# tile_bin_dir (check-tile sets it), else $TILE_BIN_DIR, else build/bin. Tests need the `cuda` feature, present when tile-run
# finds a GPU (`cuda2` when it finds two); elsewhere (CI) they are
# reported unsupported.

import os
import subprocess
import sys

import lit.formats

config.name = "TILE-Integration"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
src_root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
bin_dir = (lit_config.params.get("tile_bin_dir") or os.environ.get("TILE_BIN_DIR")
           or os.path.join(src_root, "build", "bin"))
config.test_exec_root = os.environ.get(
    "TILE_INTEGRATION_OUT", os.path.join(bin_dir, "..", "test", "Integration"))
os.makedirs(config.test_exec_root, exist_ok=True)
tile_run = os.path.join(bin_dir, "tile-run")

config.environment["PATH"] = os.environ.get("PATH", "")
config.environment["HOME"] = os.environ.get("HOME", "/tmp")
for name in ("CUDA_HOME", "TILE_CACHE_DIR"):
    if name in os.environ:
        config.environment[name] = os.environ[name]
config.substitutions.append(("%tile-run", tile_run))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tile_src_root", src_root))
config.substitutions.append(("%reference", os.path.join(src_root, "test", "Execution", "reference.py")))

try:
    found = subprocess.run([tile_run, "--list-devices"], capture_output=True,
                           text=True, timeout=60)
    if found.returncode == 0:
        config.available_features.add("cuda")
        # Tests of Hopper's own paths need an sm_90a device.
        if "(sm_90a)" in found.stdout:
            config.available_features.add("sm_90a")
        # Tests of kernels on another GPU than the first.
        if "\ncuda:1: " in found.stdout:
            config.available_features.add("cuda2")
        lit_config.note(found.stdout.strip())
except (OSError, subprocess.TimeoutExpired):
    pass
