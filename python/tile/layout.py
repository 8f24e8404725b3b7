"""tile.layout: TileLang's layout constructors (``tilelang.layout``), the
same as tile.language's (``T.make_swizzled_layout``, ...): layouts for
``T.annotate_layout``."""

from .language.ops import Layout, make_padded_layout, make_swizzled_layout  # noqa: F401

__all__ = ["Layout", "make_swizzled_layout", "make_padded_layout"]
