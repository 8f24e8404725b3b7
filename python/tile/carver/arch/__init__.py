"""tile.carver.arch: device descriptions (``tilelang.carver.arch``)."""

from . import driver  # noqa: F401
