"""tilelang.language.fp8: which fp8 dtype the current platform uses."""

from __future__ import annotations


def _hip_arch():
    """(is ROCm torch, the first GPU's gfx name or "") without requiring
    torch."""
    try:
        import torch
    except ImportError:
        return False, ""
    if getattr(torch.version, "hip", None) is None:
        return False, ""
    if not torch.cuda.is_available():
        return True, ""
    return True, getattr(torch.cuda.get_device_properties(0), "gcnArchName", "")


def determine_fp8_type(fp8_format="e4m3"):
    """The fp8 dtype of `fp8_format` ("e4m3" or "e5m2") on this platform:
    OCP's E4M3FN / E5M2 on NVIDIA (and on gfx950), AMD CDNA3's FNUZ types
    on other ROCm GPUs (TileLang's rule)."""
    from . import float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz
    if fp8_format not in ("e4m3", "e5m2"):
        raise ValueError(f"Unsupported FP8 format: {fp8_format}")
    hip, arch = _hip_arch()
    if not hip or arch.startswith("gfx950"):
        return float8_e4m3fn if fp8_format == "e4m3" else float8_e5m2
    return float8_e4m3fnuz if fp8_format == "e4m3" else float8_e5m2fnuz


def determine_torch_fp8_type(fp8_format="e4m3"):
    """The torch dtype of determine_fp8_type(fp8_format)."""
    return determine_fp8_type(fp8_format).as_torch()
