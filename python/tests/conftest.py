"""pytest configuration: the CPU target unless TILE_TEST_TARGET says cuda
(the GPU machine's run); a private cache directory per session."""

import os
import sys

import numpy as np
import pytest

TARGET = os.environ.get("TILE_TEST_TARGET", "cpu")
# Kernels without a target (the examples') follow the tests' target.
os.environ["TILE_TARGET"] = TARGET
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

# Tests never touch the user's cache.
if not os.environ.get("TILE_CACHE_DIR"):
    import tempfile
    os.environ["TILE_CACHE_DIR"] = tempfile.mkdtemp(prefix="tile-test-cache-")


@pytest.fixture
def target():
    return TARGET


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def to_device(x):
    """A NumPy array as the test target wants it (a CUDA torch tensor on
    cuda)."""
    if TARGET == "cpu":
        return x
    import torch
    return torch.from_numpy(np.ascontiguousarray(x)).to("cuda")


def to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    return x.detach().cpu().numpy()
