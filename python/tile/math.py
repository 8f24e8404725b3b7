"""tile.math: TileLang's integer helpers (``tilelang.math``; also
``tile.cdiv``, ``tile.next_power_of_2``)."""


def cdiv(a: int, b: int) -> int:
    """Ceiling division of integers: ``cdiv(10, 4) == 3``."""
    return (a + b - 1) // b


def next_power_of_2(x: int) -> int:
    """The smallest power of two >= x (1 for x <= 1)."""
    return 1 << (int(x) - 1).bit_length() if x > 1 else 1


__all__ = ["cdiv", "next_power_of_2"]
