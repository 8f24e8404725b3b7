"""TileLang's ``tilelang.contrib.nvcc`` queries of a CUDA target's compute
capability. tile compiles with LLVM's NVPTX backend, not nvcc: what exists
here is what programs ask of the target (``get_target_compute_version()``
before choosing a kernel), not nvcc's compile functions."""

from __future__ import annotations

import re

from .. import env


def _arch_of(target):
    """The ``sm_XY[a]`` name of `target` (a name, a dict or object with an
    ``arch``), or None for the CUDA device."""
    if target is None:
        return None
    if isinstance(target, dict):
        return target.get("arch")
    if isinstance(target, str):
        return target if target.startswith("sm_") else None
    arch = getattr(target, "arch", None)
    if arch is None:
        attrs = getattr(target, "attrs", None)
        arch = attrs.get("arch") if isinstance(attrs, dict) else None
    return arch


def get_target_compute_version(target=None) -> str:
    """The compute capability ("9.0") of `target`'s architecture, or of the
    CUDA device tile runs on."""
    arch = _arch_of(target)
    if arch is None:
        info, why = env.cuda_device()
        if info is None:
            raise ValueError("no CUDA architecture was given and no CUDA device was "
                             f"found ({why})")
        arch = info["chip"]
    m = re.fullmatch(r"sm_(\d+?)(\d)[af]?", str(arch))
    if not m:
        raise ValueError(f"unsupported arch: {arch}")
    return f"{m.group(1)}.{m.group(2)}"


def parse_compute_version(compute_version) -> tuple[int, int]:
    """("9.0") -> (9, 0)."""
    try:
        major, minor = str(compute_version).split(".")[:2]
        return int(major), int(minor)
    except ValueError:
        raise RuntimeError(f"compute version parsing error: {compute_version!r}") from None


def get_target_arch(compute_version) -> str:
    """The architecture suffix of a compute capability: "90a" for (9, 0)
    (Hopper's and later's architecture-specific instructions), "80"."""
    if isinstance(compute_version, str):
        major, minor = parse_compute_version(compute_version)
    else:
        major, minor = compute_version
    return f"{major * 10 + minor}" + ("a" if major >= 9 else "")


def _at_least(compute_version, major, minor=0) -> bool:
    return parse_compute_version(compute_version) >= (major, minor)


def have_fp16(compute_version) -> bool:
    return _at_least(compute_version, 5, 3)


def have_int8(compute_version) -> bool:
    return _at_least(compute_version, 6, 1)


def have_bf16(compute_version) -> bool:
    return _at_least(compute_version, 8)


def have_fp8(compute_version) -> bool:
    return _at_least(compute_version, 8, 9)


def have_tensorcore(compute_version=None, target=None) -> bool:
    return _at_least(compute_version or get_target_compute_version(target), 7)


def have_tma(target=None) -> bool:
    return _at_least(get_target_compute_version(target), 9)


def is_hopper(target=None) -> bool:
    return parse_compute_version(get_target_compute_version(target))[0] == 9
