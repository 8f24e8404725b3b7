"""The examples in python/examples, on ragged sizes, against NumPy."""

import os
import re
import runpy

import numpy as np
import pytest

from conftest import TARGET, to_device, to_numpy

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")

import flash_attention as fa  # noqa: E402
import grouped_gemm as gg  # noqa: E402
import softmax as sm  # noqa: E402


@pytest.mark.parametrize("dim,causal,bh,seq", [
    (64, False, 3, 100), (64, True, 2, 77), (128, False, 1, 65), (128, True, 2, 64)])
def test_flash_attention(rng, dim, causal, bh, seq):
    q, k, v = (rng.standard_normal((bh, seq, dim)).astype(np.float16) for _ in range(3))
    kernel = fa.flash_attention.compile(dim, causal)
    out = to_numpy(kernel(to_device(q), to_device(k), to_device(v)))
    np.testing.assert_allclose(out.astype(np.float32), fa.reference(q, k, v, causal),
                               rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("sizes,n,k,blocks", [
    ([200, 0, 64, 333, 1], 260, 200, {}),
    ([0, 129, 128, 5], 96, 72, dict(block_M=64, block_N=64, block_K=32, num_stages=2,
                                    threads=128)),
])
def test_grouped_gemm(rng, sizes, n, k, blocks):
    """Groups of any size (empty, one row, a tile and one row, ragged N and
    K): each group's rows times its B, and no row of another group touched."""
    a = rng.standard_normal((sum(sizes), k)).astype(np.float16)
    b = rng.standard_normal((len(sizes), k, n)).astype(np.float16)
    plan = [np.array(t, np.int32) for t in gg.tile_plan(sizes, blocks.get("block_M", 128))]
    assert len(plan[0]) == sum(-(-s // blocks.get("block_M", 128)) for s in sizes)
    kernel = gg.grouped_gemm(n, k, **blocks)
    out = to_numpy(kernel(*(to_device(x) for x in (a, b, *plan))))
    np.testing.assert_allclose(out.astype(np.float32), gg.reference(a, b, sizes),
                               rtol=1e-2, atol=5e-2)


@pytest.mark.parametrize("m,n", [(37, 1000), (1, 3), (8, 1024)])
def test_softmax(rng, m, n):
    x = rng.standard_normal((m, n)).astype(np.float32)
    y = to_numpy(sm.softmax(n)(to_device(x)))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("script", ["gemm.py", "lazy_jit_notebook.py", "softmax.py",
                                    "flash_attention.py", "grouped_gemm.py"])
def test_example_scripts_run(script, monkeypatch, capsys):
    monkeypatch.setenv("TILE_TARGET", TARGET)
    runpy.run_path(os.path.join(EXAMPLES, script), run_name="__main__")
    out = capsys.readouterr().out
    # Every check the script prints holds: each "max error E" is small (f16
    # inputs: 5e-2 at the most), each "equal X" is True, and the collatz
    # count is 18.
    errors = [float(e) for e in re.findall(r"max error\s+([-+0-9.eE]+|nan|inf)", out)]
    equals = re.findall(r"equal (\w+)", out)
    assert errors or equals, out
    assert all(e <= 5e-2 for e in errors), out
    assert all(e == "True" for e in equals), out
    if "collatz" in out:
        assert re.search(r"collatz: 18 \(expected 18\)", out), out
