"""tile.testing: TileLang's test helpers (``tilelang.testing``).

- ``main()``: runs pytest on the calling file (``if __name__ == "__main__":
  tile.testing.main()``);
- requirement decorators that skip a test where it cannot run:
  ``requires_cuda``, ``requires_cuda_compute_version(9, 0)`` (and its
  ``_ge``/``_gt``/``_le``/``_lt``/``_eq`` forms), ``requires_llvm`` (the CPU
  target: always there), ``requires_package("einops")``, ``requires_rocm``,
  ``requires_cdna``, ``requires_gfx950``, ``requires_cuda_or_cdna``,
  ``requires_metal`` (this build runs no ROCm or Metal kernels: those skip);
- ``set_random_seed(seed)``: Python's, NumPy's and torch's generators;
- ``torch_assert_close`` (tile.utils.tensor's);
- ``process_func`` / ``regression``: TileLang's performance-regression
  entry points (each ``regression_*`` function's latency, in a table).
"""

from __future__ import annotations

import importlib.util
import inspect
import random
import sys

from . import env
from .utils.tensor import torch_assert_close  # noqa: F401


class Requirement:
    """A skip condition usable as a decorator (``@requires_cuda``) or as
    pytest marks (``requires_cuda.marks()``), as TVM's testing features."""

    def __init__(self, name, check, reason):
        self.name = name
        self._check = check
        self._reason = reason
        self._value = None

    def available(self) -> bool:
        if self._value is None:
            self._value = bool(self._check())
        return self._value

    def marks(self):
        import pytest
        return [pytest.mark.skipif(not self.available(), reason=self._reason)]

    def __call__(self, func):
        for mark in self.marks():
            func = mark(func)
        return func

    def __bool__(self):
        return self.available()

    def __repr__(self):
        return f"<tile.testing requirement {self.name}: {self.available()}>"


def _cuda():
    return env.cuda_device()[0] is not None


def compute_version():
    """(major, minor) of the CUDA device, (0, 0) without one."""
    info = env.cuda_device()[0]
    if info is None:
        return (0, 0)
    chip = info.get("chip", "")
    digits = "".join(c for c in chip[3:] if c.isdigit()) if chip.startswith("sm_") else ""
    if len(digits) < 2:
        return (0, 0)
    return (int(digits[:-1]), int(digits[-1]))


requires_cuda = Requirement("cuda", _cuda, "needs a CUDA GPU")
requires_llvm = Requirement("llvm", lambda: True, "needs the CPU target")
requires_rocm = Requirement("rocm", lambda: False,
                            "needs ROCm (this build of tile runs no ROCm kernels)")
requires_cdna = Requirement("cdna", lambda: False,
                            "needs an AMD CDNA GPU (this build of tile runs no ROCm kernels)")
requires_gfx950 = Requirement("gfx950", lambda: False,
                              "needs gfx950 (this build of tile runs no ROCm kernels)")
requires_cuda_or_cdna = Requirement("cuda_or_cdna", _cuda, "needs a CUDA GPU")
requires_metal = Requirement("metal", lambda: False, "needs Metal (tile has no Metal target)")


def requires_package(*packages):
    """Skips unless every package can be imported."""
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    return Requirement("package " + ", ".join(packages), lambda: not missing,
                       f"needs {', '.join(missing)}")


_COMPARE = {"ge": lambda a, b: a >= b, "gt": lambda a, b: a > b, "le": lambda a, b: a <= b,
            "lt": lambda a, b: a < b, "eq": lambda a, b: a == b}


def requires_cuda_compute_version(major_version, minor_version=0, mode="ge"):
    """Skips unless a CUDA GPU's compute capability compares (`mode`: ge,
    gt, le, lt, eq) with (major_version, minor_version)."""
    if mode not in _COMPARE:
        raise ValueError(f"mode must be ge, gt, le, lt or eq, got {mode!r}")
    want = (major_version, minor_version)
    requirement = Requirement(
        f"cuda compute {mode} {major_version}.{minor_version}",
        lambda: _cuda() and _COMPARE[mode](compute_version(), want),
        f"needs a CUDA GPU of compute capability {mode} {major_version}.{minor_version}")
    return requirement


def requires_cuda_compute_version_ge(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "ge")


def requires_cuda_compute_version_gt(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "gt")


def requires_cuda_compute_version_le(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "le")


def requires_cuda_compute_version_lt(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "lt")


def requires_cuda_compute_version_eq(major_version, minor_version=0):
    return requires_cuda_compute_version(major_version, minor_version, "eq")


def main():
    """Runs pytest on the calling file (with this process's arguments) and
    exits with its status."""
    import pytest
    test_file = inspect.getsourcefile(sys._getframe(1))
    sys.exit(pytest.main([test_file] + sys.argv[1:]))


def set_random_seed(seed: int = 42) -> None:
    """Seeds Python's, NumPy's and (when installed) torch's generators."""
    random.seed(seed)
    try:
        import numpy as np
        np.random.seed(seed)
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    if "torch" in sys.modules or importlib.util.find_spec("torch") is not None:
        import torch
        torch.manual_seed(seed)
        if torch.cuda.is_available():
            torch.cuda.manual_seed_all(seed)


# ---------------------------------------------------------------------------
# Performance regressions (TileLang's process_func / regression)
# ---------------------------------------------------------------------------

_results = []


def process_func(func, name=None, /, **kwargs):
    """Runs `func(**kwargs)`, which returns a latency, and records it under
    `name` (default: the function's module)."""
    label = name if name is not None else getattr(func, "__module__", "<unknown>")
    if label.startswith("regression_"):
        label = label[len("regression_"):]
    latency = float(func(**kwargs))
    for _ in range(5):
        if latency > 0:
            break
        latency = float(func(**kwargs))
    if latency <= 0:
        import warnings
        warnings.warn(f"{label} has latency {latency} <= 0", RuntimeWarning, stacklevel=2)
        return
    _results.append((label, latency))


def regression(prefixes=("regression_",), verbose=True):
    """Runs the caller's module functions whose names start with one of
    `prefixes` and prints each latency (a markdown table)."""
    caller = inspect.currentframe().f_back.f_globals
    _results.clear()
    names = sorted(k for k, v in caller.items()
                   if callable(v) and any(k.startswith(p) for p in prefixes))
    for name in names:
        case = name[len("regression_"):] if name.startswith("regression_") else name
        before = len(_results)
        value = caller[name]()
        if len(_results) == before and isinstance(value, (int, float)) and value > 0:
            _results.append((case, float(value)))
        if verbose:
            print(f"  - {case}: done", flush=True)
    print("| name | latency |")
    print("| --- | --- |")
    for label, latency in _results:
        print(f"| {label} | {latency:.6f} |")


__all__ = ["main", "Requirement", "requires_cuda", "requires_llvm", "requires_rocm",
           "requires_cdna", "requires_gfx950", "requires_cuda_or_cdna", "requires_metal",
           "requires_package", "requires_cuda_compute_version",
           "requires_cuda_compute_version_ge", "requires_cuda_compute_version_gt",
           "requires_cuda_compute_version_le", "requires_cuda_compute_version_lt",
           "requires_cuda_compute_version_eq", "set_random_seed", "torch_assert_close",
           "process_func", "regression", "compute_version"]
