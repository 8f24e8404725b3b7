"""tile.carver.arch.cdna: AMD Instinct GPUs (``tilelang.carver.arch.cdna``).

tile runs no ROCm kernels yet, so ``CDNA(target)`` never reads a device: it
describes the reference chip of the gfx architecture that `target` names
("hip -mcpu=gfx950", "gfx90a"; plain "hip" is gfx942):

=======  ===========  ===  =================  ======  =====  ====  =====
gfx      chip         CUs  LDS (block, CU)    L2      mma    L2 B  DRAM B
=======  ===========  ===  =================  ======  =====  ====  =====
gfx90a   MI250X GCD   110  64 KiB             8 MiB   1024   64    8.6
gfx942   MI300X       304  64 KiB             4 MiB   2048   64    8.3
gfx950   MI355X       256  160 KiB            4 MiB   4096   64    13.0
=======  ===========  ===  =================  ======  =====  ====  =====

(Per CU and cycle, as in tile.carver.arch.cuda; wavefronts of 64 lanes.)
"""

from __future__ import annotations

import re

from .arch_base import TileDevice

KIB = 1024
MIB = 1024 * 1024

# LDS of gfx950 (CDNA4), TileLang's name for it.
_GFX950_LDS_SIZE = 160 * KIB

# gfx -> (chip, CUs, LDS bytes, L2 bytes, mma FLOPs/cycle, L2 bytes/cycle,
# DRAM bytes/cycle).
_CHIPS = {
    "gfx90a": ("MI250X (one GCD)", 110, 64 * KIB, 8 * MIB, 1024, 64, 8.6),
    "gfx942": ("MI300X", 304, 64 * KIB, 4 * MIB, 2048, 64, 8.3),
    "gfx950": ("MI355X", 256, _GFX950_LDS_SIZE, 4 * MIB, 4096, 64, 13.0),
}
DEFAULT_MCPU = "gfx942"


def is_cdna_arch(arch: TileDevice) -> bool:
    return isinstance(arch, CDNA)


def _mcpu_of(target):
    if isinstance(target, str):
        text = target
    elif isinstance(target, dict):
        text = str(target.get("mcpu", ""))
    else:
        attrs = getattr(target, "attrs", None)
        text = str(getattr(target, "mcpu", None)
                   or (attrs.get("mcpu", "") if hasattr(attrs, "get") else ""))
    found = re.search(r"gfx[0-9a-f]+", text)
    if found is None:
        return DEFAULT_MCPU
    if found.group(0) not in _CHIPS:
        raise ValueError(f"CDNA: tile models {', '.join(_CHIPS)}, not {found.group(0)}")
    return found.group(0)


class CDNA(TileDevice):
    """An AMD CDNA GPU (see the module's docstring)."""

    def __init__(self, target="hip"):
        super().__init__()
        self.mcpu = _mcpu_of(target)
        chip, cus, lds, l2, mma, load, dram = _CHIPS[self.mcpu]
        self.platform = "CDNA"
        self.target = f"hip -mcpu={self.mcpu}"
        self.name = chip
        self.compute_capability = self.mcpu[3:]
        self.compute_max_core = cus
        self.warp_size = 64
        self.smem_cap = lds
        self.max_smem_usage = lds
        self.l2_cache_size_bytes = l2
        self.reg_cap = 4 * 512 * 64  # four SIMDs of 512 VGPRs (AGPRs included)
        self.max_registers_per_thread = 512
        self.max_threads_per_sm = 2048
        self.mma_flops_per_cycle = mma
        self.load_bytes_per_cycle = load
        self.dram_bytes_per_cycle = dram
        self.bandwidth = [1300, 14000]

    def __repr__(self):
        return f"CDNA({self.target!r})"


__all__ = ["is_cdna_arch", "CDNA"]
