"""tile.carver.roller.rasterization: the block orders a hint recommends for
L2 reuse (``tilelang.carver.roller.rasterization``).

A plan is applied in a kernel with ``T.use_swizzle(**plan.swizzle_args())``
(TileLang's own ``get_code`` emits CUDA C, which tile does not generate)."""

from __future__ import annotations


class Rasterization:
    """A block order; ``panel_width`` is the panel's width in blocks."""

    panel_width_ = None
    order = None

    def get_code(self):
        raise NotImplementedError(
            "tile generates no CUDA C: pass plan.swizzle_args() to T.use_swizzle")

    @property
    def panel_width(self):
        if self.panel_width_ is None:
            raise ValueError(f"{self!r} has no panel width")
        return self.panel_width_

    def swizzle_args(self) -> dict:
        """T.use_swizzle's arguments for this plan."""
        return {"panel_size": self.panel_width, "order": self.order, "enable": True}

    def __eq__(self, other):
        return (type(self) is type(other) and self.panel_width_ == other.panel_width_)

    def __hash__(self):
        return hash((type(self).__name__, self.panel_width_))


class NoRasterization(Rasterization):
    """Blocks in the launch's order."""

    def __repr__(self) -> str:
        return "<NoRasterization>"

    def get_code(self):
        return []

    def swizzle_args(self) -> dict:
        return {"panel_size": 1, "order": "row", "enable": False}


class Rasterization2DRow(Rasterization):
    """Panels `panel_width` blocks wide along the grid's x; inside one,
    consecutive blocks step along x first (T.use_swizzle(order="row"))."""

    order = "row"

    def __init__(self, panel_width=4) -> None:
        self.panel_width_ = int(panel_width)

    def __repr__(self) -> str:
        return f"<Rasterization2DRow({self.panel_width_})>"


class Rasterization2DColumn(Rasterization):
    """Panels `panel_width` blocks tall along the grid's y; inside one,
    consecutive blocks step along y first (T.use_swizzle(order="column"),
    the order TileLang's roller recommends)."""

    order = "column"

    def __init__(self, panel_width=4) -> None:
        self.panel_width_ = int(panel_width)

    def __repr__(self) -> str:
        return f"<Rasterization2DColumn({self.panel_width_})>"


__all__ = ["Rasterization", "NoRasterization", "Rasterization2DRow", "Rasterization2DColumn"]
