"""tile.carver.arch.driver: the CUDA device's properties, as TileLang's
``tilelang.carver.arch.driver`` reads them (through torch, and the CUDA
runtime for attributes torch does not give). Functions that need a GPU
raise RuntimeError without one."""

from __future__ import annotations

import ctypes

_FORMATS = {"bytes": 1, "kb": 1024, "mb": 1024 * 1024}

# cudaDeviceAttr values (CUDA runtime API).
ATTR_MAX_THREADS_PER_BLOCK = 1
ATTR_MAX_REGISTERS_PER_BLOCK = 12
ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81
ATTR_MAX_PERSISTING_L2_CACHE_SIZE = 108


def get_cuda_device_properties(device_id: int = 0):
    """torch's properties of CUDA device `device_id`, or None without one."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_properties(device_id)


def _properties(device_id):
    prop = get_cuda_device_properties(device_id)
    if prop is None:
        raise RuntimeError(f"no CUDA device {device_id} (torch is not installed or sees "
                           "no GPU)")
    return prop


def _scaled(value, format):
    if format not in _FORMATS:
        raise ValueError(f"format must be bytes, kb or mb, got {format!r}")
    return None if value is None else int(value) // _FORMATS[format]


def get_device_name(device_id: int = 0):
    prop = get_cuda_device_properties(device_id)
    return prop.name if prop is not None else None


def get_num_sms(device_id: int = 0) -> int:
    """The number of streaming multiprocessors."""
    return int(_properties(device_id).multi_processor_count)


def get_shared_memory_per_block(device_id: int = 0, format: str = "bytes"):
    return _scaled(_properties(device_id).shared_memory_per_block, format)


def _cudart():
    for name in ("libcudart.so", "libcudart.so.12", "libcudart.so.13", "libcudart.so.11.0"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def get_device_attribute(attr: int, device_id: int = 0):
    """cudaDeviceGetAttribute(attr, device_id), or None when the CUDA runtime
    cannot be loaded or fails."""
    lib = _cudart()
    if lib is None:
        return None
    value = ctypes.c_int()
    fn = lib.cudaDeviceGetAttribute
    fn.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int]
    fn.restype = ctypes.c_int
    if fn(ctypes.byref(value), attr, device_id) != 0:
        return None
    return value.value


def get_max_dynamic_shared_size_bytes(device_id: int = 0, format: str = "bytes"):
    """Shared memory per multiprocessor (the most one block may use)."""
    prop = _properties(device_id)
    value = getattr(prop, "shared_memory_per_multiprocessor", None)
    if value is None:
        value = get_device_attribute(ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, device_id)
    return _scaled(value, format)


def get_persisting_l2_cache_max_size(device_id: int = 0):
    return get_device_attribute(ATTR_MAX_PERSISTING_L2_CACHE_SIZE, device_id)


def get_registers_per_block(device_id: int = 0):
    value = get_device_attribute(ATTR_MAX_REGISTERS_PER_BLOCK, device_id)
    if value is None:
        value = getattr(_properties(device_id), "regs_per_multiprocessor", None)
    return value


__all__ = ["get_cuda_device_properties", "get_device_name", "get_num_sms",
           "get_shared_memory_per_block", "get_device_attribute",
           "get_max_dynamic_shared_size_bytes", "get_persisting_l2_cache_max_size",
           "get_registers_per_block"]
