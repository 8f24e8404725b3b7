"""tile.carver.arch.cuda: NVIDIA GPUs (``tilelang.carver.arch.cuda``).

``CUDA(target)`` describes the CUDA device tile runs on, or, where the
target names another chip (``CUDA("sm_80")``, ``"cuda -arch=sm_80"``, a dict
or object with an ``arch``) or no device is present, a reference chip of
that architecture from the table below (``on_device`` says which). Without a device and without an
architecture (``CUDA("cuda")`` on a machine with no GPU) it describes an
H100 and says so once (a UserWarning); TileLang raises there.

Reference chips (per-SM figures; see arch_base for their meaning). An
architecture between two rows takes the lower one's, sm_100 and later the
H100's:

=====  ==========  ===  ==========  ========  ======  =====  ====  =====
sm     chip        SMs  smem/block  smem/SM   L2      mma    L2 B  DRAM B
=====  ==========  ===  ==========  ========  ======  =====  ====  =====
70     V100        80   96 KiB      96 KiB    6 MiB   1024   32    8.2
75     T4          40   64 KiB      64 KiB    4 MiB   1024   32    5.0
80     A100 SXM    108  163 KiB     164 KiB   40 MiB  2048   48    13.4
86     A10         72   99 KiB      100 KiB   6 MiB   1024   48    4.9
89     L40S        142  99 KiB      100 KiB   96 MiB  1024   48    2.4
90     H100 SXM    132  227 KiB     228 KiB   50 MiB  4096   48    14.5
=====  ==========  ===  ==========  ========  ======  =====  ====  =====

(mma: dense 16-bit tensor-core FLOPs per cycle; L2 B / DRAM B: bytes per
cycle; DRAM is the board's bandwidth over its SMs and boost clock.) On a
device, the SM count, shared memory, L2 size, threads and registers per SM
are read from it (the CUDA runtime, else torch); throughput comes from the
table.
"""

from __future__ import annotations

import re

from ... import env
from . import driver
from .arch_base import TileDevice

KIB = 1024
MIB = 1024 * 1024

# sm -> (chip, SMs, smem per block (opt-in), smem per SM, L2 bytes, max
# threads per SM, mma FLOPs/cycle, L2 bytes/cycle, DRAM bytes/cycle).
_CHIPS = {
    70: ("Tesla V100", 80, 96 * KIB, 96 * KIB, 6 * MIB, 2048, 1024, 32, 8.2),
    75: ("Tesla T4", 40, 64 * KIB, 64 * KIB, 4 * MIB, 1024, 1024, 32, 5.0),
    80: ("A100-SXM4", 108, 163 * KIB, 164 * KIB, 40 * MIB, 2048, 2048, 48, 13.4),
    86: ("A10", 72, 99 * KIB, 100 * KIB, 6 * MIB, 1536, 1024, 48, 4.9),
    89: ("L40S", 142, 99 * KIB, 100 * KIB, 96 * MIB, 1536, 1024, 48, 2.4),
    90: ("H100 SXM", 132, 227 * KIB, 228 * KIB, 50 * MIB, 2048, 4096, 48, 14.5),
}
DEFAULT_ARCH = "sm_90"

# cudaDeviceAttr values (CUDA runtime API).
_ATTR_MULTIPROCESSOR_COUNT = 16
_ATTR_L2_CACHE_SIZE = 38
_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39
_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81
_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82
_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97

# Matches an SM arch in full: one optional "sm_", the compute capability,
# then the feature-set letters of Hopper and later ("sm_90a", "sm_100f").
_SM_VERSION = re.compile(r"^(?:sm_)?(\d+)[a-zA-Z]*$")


def check_sm_version(arch: str) -> int:
    """The compute capability of an SM arch ("sm_90a" -> 90, "80" -> 80),
    or -1 for anything else ("gfx942", "sm_sm_90")."""
    match = _SM_VERSION.match(str(arch))
    return int(match.group(1)) if match else -1


def is_cuda_arch(arch: TileDevice) -> bool:
    return isinstance(arch, CUDA)


def is_volta_arch(arch: TileDevice) -> bool:
    return is_cuda_arch(arch) and 70 <= arch.sm_version < 80


def is_ampere_arch(arch: TileDevice) -> bool:
    return is_cuda_arch(arch) and 80 <= arch.sm_version < 89


def is_ada_arch(arch: TileDevice) -> bool:
    return is_cuda_arch(arch) and arch.sm_version == 89


def is_hopper_arch(arch: TileDevice) -> bool:
    return is_cuda_arch(arch) and arch.sm_version == 90


def has_mma_support(arch: TileDevice) -> bool:
    return is_cuda_arch(arch) and arch.sm_version >= 80


_VOLTA_TC = {("float16", "float32"), ("float16", "float16")}
_AMPERE_TC = {("bfloat16", "float32"), ("float16", "float32"), ("float16", "float16"),
              ("int8", "int32"), ("int4", "int32"), ("int2", "int32"), ("int1", "int32")}
_ADA_TC = {("bfloat16", "float32"), ("float16", "float32"), ("float16", "float16"),
           ("int8", "int32"), ("float8_e5m2", "float32"), ("float8_e4m3", "float32")}


def is_tensorcore_supported_precision(in_dtype: str, accum_dtype: str,
                                      arch: TileDevice) -> bool:
    """Whether `arch`'s tensor cores multiply `in_dtype` into `accum_dtype`
    (TileLang's table: Volta, Ampere, Ada, Hopper; a ValueError for others)."""
    pair = (str(in_dtype), str(accum_dtype))
    if is_volta_arch(arch):
        return pair in _VOLTA_TC
    if is_ampere_arch(arch):
        return pair in _AMPERE_TC
    if is_ada_arch(arch) or is_hopper_arch(arch):
        return pair in _ADA_TC
    raise ValueError(f"unsupported architecture: {arch}")


class TensorInstruction:
    """A matrix instruction's name and its M x N shape."""

    def __init__(self, name: str, shape: list[int]):
        self.name = name
        self.shape = shape


def _arch_of(target):
    """The "sm_XY" that `target` names, or None (a plain "cuda")."""
    if target is None:
        return None
    if isinstance(target, dict):
        arch = target.get("arch")
    elif isinstance(target, str):
        found = re.search(r"sm_\d+[a-zA-Z]*", target)
        arch = found.group(0) if found else (target.strip() if target.strip().isdigit()
                                              else None)
    else:
        arch = getattr(target, "arch", None)
        if arch is None:
            attrs = getattr(target, "attrs", None)
            arch = attrs.get("arch") if hasattr(attrs, "get") else None
    if arch is None:
        return None
    version = check_sm_version(arch)
    if version < 0:
        raise ValueError(f"CUDA: {target!r} names no SM architecture (sm_XY)")
    return f"sm_{version}"


def _reference(version: int):
    known = [v for v in sorted(_CHIPS) if v <= version]
    return _CHIPS[known[-1] if known else min(_CHIPS)]


def _device_attribute(attr):
    value = driver.get_device_attribute(attr)
    return value if value else None


class CUDA(TileDevice):
    """An NVIDIA GPU (see the module's docstring for where its figures come
    from)."""

    def __init__(self, target="cuda"):
        super().__init__()
        arch = _arch_of(target)
        info, why = env.cuda_device()
        on_device = info is not None and (
            arch is None or check_sm_version(arch) == check_sm_version(info["chip"]))
        if on_device:
            arch = f"sm_{check_sm_version(info['chip'])}"
        elif arch is None:
            arch = DEFAULT_ARCH
            env.note_once(f"tile.carver: no CUDA device ({why}); CUDA({target!r}) describes "
                          "an H100 (sm_90: 132 SMs, 227 KiB of shared memory per block); "
                          "name the chip, as in CUDA('sm_80'), to model another")
        self.sm_version = check_sm_version(arch)
        (chip, sms, smem_block, smem_sm, l2, threads, mma, load,
         dram) = _reference(self.sm_version)
        self.platform = "CUDA"
        self.target = f"cuda -arch={arch}"
        self.name = chip
        self.compute_capability = str(self.sm_version)
        self.on_device = on_device
        self.compute_max_core = sms
        self.smem_cap = smem_block
        self.max_smem_usage = smem_sm
        self.l2_cache_size_bytes = l2
        self.max_threads_per_sm = threads
        self.reg_cap = 65536
        self.mma_flops_per_cycle = mma
        self.load_bytes_per_cycle = load
        self.dram_bytes_per_cycle = dram
        self.bandwidth = [750, 12080]
        self.available_tensor_instructions = None
        if on_device:
            self._read_device(info)

    def _read_device(self, info):
        """The device's own figures where the CUDA runtime (or torch) gives
        them; the table's otherwise."""
        self.name = info.get("name") or self.name
        sms = _device_attribute(_ATTR_MULTIPROCESSOR_COUNT)
        if sms is None:
            try:
                sms = driver.get_num_sms()
            except RuntimeError:
                sms = None
        self.compute_max_core = sms or self.compute_max_core
        self.smem_cap = _device_attribute(_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN) or self.smem_cap
        self.max_smem_usage = (_device_attribute(_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
                               or max(self.max_smem_usage, self.smem_cap))
        self.l2_cache_size_bytes = (_device_attribute(_ATTR_L2_CACHE_SIZE)
                                    or self.l2_cache_size_bytes)
        self.max_threads_per_sm = (_device_attribute(_ATTR_MAX_THREADS_PER_MULTIPROCESSOR)
                                   or self.max_threads_per_sm)
        self.reg_cap = _device_attribute(_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR) or self.reg_cap

    def get_avaliable_tensorintrin_shapes(self):
        self.available_tensor_instructions = (TensorInstruction("mma", [16, 16]),
                                              TensorInstruction("wmma", [16, 16]))
        return [t.shape for t in self.available_tensor_instructions]

    def __repr__(self):
        return f"CUDA({self.target!r})"


__all__ = ["check_sm_version", "is_cuda_arch", "is_volta_arch", "is_ampere_arch",
           "is_ada_arch", "is_hopper_arch", "is_tensorcore_supported_precision",
           "has_mma_support", "CUDA"]
