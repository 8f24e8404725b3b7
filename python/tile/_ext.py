"""The compiled extension (tile._tile): the JIT library and GPU runtimes."""

try:
    from . import _tile as ext  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the installation
    raise ImportError(
        "tile's extension (tile._tile) is missing: build the project "
        "(./scripts/build.sh) and put build/python on PYTHONPATH, or "
        f"pip install the project ({e})") from e
