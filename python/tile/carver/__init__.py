"""tile.carver: the parts of TileLang's ``tilelang.carver`` that tuning
scripts import: ``tile.carver.arch.driver`` (the GPU's SM count, shared
memory, registers)."""

from . import arch  # noqa: F401
