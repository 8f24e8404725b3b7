"""TileLang's ``tilelang.contrib``: the CUDA target queries its programs
use (``tile.contrib.nvcc``)."""
