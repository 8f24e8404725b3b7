"""tile.autotune (filled in below)."""


def autotune(*args, **kwargs):  # pragma: no cover - replaced
    raise NotImplementedError
