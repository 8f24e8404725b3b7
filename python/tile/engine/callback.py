"""TileLang's ``tilelang.engine.callback``: functions registered to rewrite
the CUDA C, HIP, C or Metal source TileLang generates. tile generates no
such source (its kernels go from MLIR to PTX or AMDGPU code through LLVM),
so a registered function is kept but never called; registering one says so
once."""

from __future__ import annotations

from ..env import note_once

# The registered functions, by the source they would rewrite.
registered: dict[str, object] = {}


def _register(kind, func, override=True):
    if not callable(func):
        raise TypeError(f"a {kind} post-processing callback must be callable, "
                        f"got {type(func).__name__}")
    if kind in registered and not override:
        raise ValueError(f"a {kind} post-processing callback is already registered "
                         "(override=False)")
    registered[kind] = func
    note_once(f"a {kind} post-processing callback was registered: tile generates no "
              f"{kind} source (its kernels go through MLIR and LLVM), so it is never "
              "called")
    return func


def register_cuda_postproc(func, override=True):
    return _register("cuda", func, override)


def register_hip_postproc(func, override=True):
    return _register("hip", func, override)


def register_c_postproc(func, override=True):
    return _register("c", func, override)


def register_metal_postproc(func, override=True):
    return _register("metal", func, override)


def _decorator(kind):
    def decorate(func=None, override=True):
        if callable(func):
            return _register(kind, func, override)
        flag = func if isinstance(func, bool) else override
        return lambda fn: _register(kind, fn, flag)
    decorate.__name__ = f"register_{kind}_postproc_callback"
    decorate.__doc__ = (f"Decorator registering a {kind} post-processing callback, "
                        "with or without parentheses (override=...).")
    return decorate


register_cuda_postproc_callback = _decorator("cuda")
register_hip_postproc_callback = _decorator("hip")
