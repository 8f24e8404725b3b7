"""tile.compat: TileLang programs on tile, unchanged.

    python -m tile.compat PROGRAM.py [args...]     # runs PROGRAM.py as __main__
    python -m tile.compat -m package.module [args...]

runs a TileLang program with ``tilelang`` and every ``tilelang.X`` submodule
resolved to ``tile`` / ``tile.X`` (``import tilelang.language as T`` gives
``tile.language``), ``sys.argv`` as the program expects (its path, then its
arguments) and its directory first on ``sys.path``, as ``python PROGRAM.py``
would. Inside a running interpreter, ``tile.compat.install()`` does the same
for later imports; ``uninstall()`` undoes it.

The alias is an import hook (a meta-path finder), not a package: nothing
named ``tilelang`` is installed, so TileLang itself stays importable where
the hook is not installed. What tile lacks raises ImportError /
AttributeError naming the missing ``tile`` name.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys

ALIAS = "tilelang"
TARGET = "tile"


def _real_name(fullname):
    return TARGET + fullname[len(ALIAS):]


class _AliasLoader(importlib.abc.Loader):
    """Loads ``tilelang.X`` as the module ``tile.X`` itself (one module
    object under both names)."""

    def __init__(self, real):
        self.real = real
        self._spec = None

    def create_module(self, spec):
        module = importlib.import_module(self.real)
        # The import system sets the module's __spec__ to the alias's; keep
        # the real one (exec_module puts it back).
        self._spec = module.__spec__
        return module

    def exec_module(self, module):
        if self._spec is not None:
            module.__spec__ = self._spec
            module.__loader__ = self._spec.loader


def _alias_imported(skip=None):
    """Registers every imported tile module under its tilelang name too
    (but `skip`, the name being found: the import system loads that one).
    Importing a name that is in sys.modules binds nothing, so `tile.jit`
    (the decorator, named like its module) stays the decorator when a
    program imports `tilelang.jit`."""
    for name, module in list(sys.modules.items()):
        if module is not None and (name == TARGET or name.startswith(TARGET + ".")):
            alias = ALIAS + name[len(TARGET):]
            if alias != skip:
                sys.modules.setdefault(alias, module)


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``tilelang`` and ``tilelang.*`` as ``tile`` and ``tile.*``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        _alias_imported(skip=fullname)
        real = _real_name(fullname)
        try:
            found = importlib.util.find_spec(real)
        except (ImportError, AttributeError, ValueError):
            found = None
        if found is None:
            if real in sys.modules:
                found = True
            else:
                raise ModuleNotFoundError(
                    f"No module named {fullname!r}: tile has no module {real!r} (tile.compat "
                    f"resolves {ALIAS} to {TARGET}; docs/python.md lists what tile provides)",
                    name=fullname)
        is_package = found is not True and found.submodule_search_locations is not None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(real),
                                              is_package=is_package)


_finder = None


def installed() -> bool:
    """Whether ``tilelang`` resolves to ``tile`` in this interpreter."""
    return _finder is not None and _finder in sys.meta_path


def install():
    """Resolves later imports of ``tilelang`` and ``tilelang.*`` to ``tile``
    in this interpreter (idempotent). Raises RuntimeError when a real
    TileLang is already imported."""
    global _finder
    existing = sys.modules.get(ALIAS)
    tile = importlib.import_module(TARGET)
    if existing is not None and existing is not tile:
        raise RuntimeError("tile.compat.install(): TileLang itself is already imported "
                           f"(from {getattr(existing, '__file__', '?')}); install the "
                           "alias before the first `import tilelang`")
    if installed():
        return
    _finder = _AliasFinder()
    sys.meta_path.insert(0, _finder)
    _alias_imported()


def uninstall():
    """Undoes install(): drops the hook and the ``tilelang`` names imported
    through it (the tile modules stay)."""
    global _finder
    if _finder is not None and _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    _finder = None
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        if sys.modules[name].__name__.startswith(TARGET):
            del sys.modules[name]


def run_path(program, args=()):
    """Runs the file `program` as ``__main__`` with the alias installed and
    ``sys.argv = [program, *args]``; returns its globals."""
    install()
    program = os.fspath(program)
    if not os.path.exists(program):
        raise FileNotFoundError(f"tile.compat: no such program: {program}")
    sys.argv = [program, *args]
    directory = os.path.dirname(os.path.abspath(program))
    if sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path[0] = directory
    else:
        sys.path.insert(0, directory)
    return runpy.run_path(program, run_name="__main__")


def run_module(module, args=()):
    """Runs `module` (``python -m module``) as ``__main__`` with the alias
    installed."""
    install()
    sys.argv = [module, *args]
    return runpy.run_module(module, run_name="__main__", alter_sys=True)


_USAGE = """usage: python -m tile.compat PROGRAM.py [args...]
       python -m tile.compat -m MODULE [args...]

Runs a TileLang program with `tilelang` resolved to `tile` (docs/python.md)."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE)
        return 0 if argv else 2
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        run_module(argv[1], argv[2:])
        return 0
    run_path(argv[0], argv[1:])
    return 0


if __name__ == "__main__":
    # One tile.compat module (the alias state lives there), not a second
    # copy under __main__.
    from tile import compat as _compat
    sys.exit(_compat.main())
