"""tile.carver.arch: device descriptions (``tilelang.carver.arch``): the
TileDevice classes CUDA, CDNA and CPU, TileLang's predicates on them,
``get_arch(target)``, ``auto_infer_current_arch()`` and ``driver`` (the CUDA
device's properties). tile models no RDNA or Metal device."""

from __future__ import annotations

from . import driver  # noqa: F401
from .arch_base import TileDevice
from .cdna import CDNA, is_cdna_arch
from .cpu import CPU, is_cpu_arch
from .cuda import (CUDA, check_sm_version, has_mma_support, is_ada_arch,  # noqa: F401
                   is_ampere_arch, is_cuda_arch, is_hopper_arch,
                   is_tensorcore_supported_precision, is_volta_arch)
from ... import env


def is_rdna_arch(arch: TileDevice) -> bool:
    """False: tile models no RDNA device."""
    return False


def get_arch(target="cuda") -> TileDevice:
    """The TileDevice of `target`: "cuda" / "sm_90" / "cuda -arch=sm_80"
    (CUDA), "hip" / "rocm" / "gfx942" (CDNA), "llvm" / "cpu" (CPU), "auto"
    (auto_infer_current_arch()); a target object is read through its
    ``kind`` (TileLang's Target)."""
    if isinstance(target, TileDevice):
        return target
    kind = getattr(target, "kind", None)
    text = str(getattr(kind, "name", kind) if kind is not None else target).strip().lower()
    name = text.split()[0] if text else "auto"
    if name == "auto":
        return auto_infer_current_arch()
    if name in ("cuda", "nvidia") or name.startswith("sm_"):
        return CUDA(target)
    if name in ("hip", "rocm", "amd") or name.startswith("gfx"):
        return CDNA(target)
    if name in ("llvm", "cpu", "c", "host"):
        return CPU(target)
    raise ValueError(f"unsupported target: {target!r} (tile.carver models cuda, hip and cpu)")


def auto_infer_current_arch() -> TileDevice:
    """The CUDA device tile runs on, else the host (CPU), as TileLang's."""
    if env.cuda_device()[0] is not None:
        return CUDA("cuda")
    return CPU("llvm")


__all__ = ["TileDevice", "CUDA", "CDNA", "CPU", "driver", "get_arch", "auto_infer_current_arch",
           "check_sm_version", "is_cpu_arch", "is_cuda_arch", "is_volta_arch", "is_ampere_arch",
           "is_ada_arch", "is_hopper_arch", "is_tensorcore_supported_precision",
           "has_mma_support", "is_cdna_arch", "is_rdna_arch"]
