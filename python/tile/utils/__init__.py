"""tile.utils: TileLang's utilities (``tilelang.utils``) that programs import."""

import os

from .tensor import (KernelParam, TensorSupplyType, get_tensor_supply,  # noqa: F401
                     is_float8_dtype, map_torch_type, torch_assert_close)


def get_available_cpu_count() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


__all__ = ["TensorSupplyType", "KernelParam", "get_tensor_supply", "map_torch_type",
           "is_float8_dtype", "torch_assert_close", "get_available_cpu_count"]
