"""The IR builder: operations in nested regions, printed as tile-dialect
text whose locations are the Python source positions that created them."""

from __future__ import annotations

import os
import sys
import threading

from ..errors import TileError

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _user_frame():
    """The innermost frame outside the tile package: the user's code."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return frame


def where():
    """(file, line, column) of the user code running now."""
    frame = _user_frame()
    if frame is None:
        return ("<unknown>", 0, 0)
    line, col = frame.f_lineno, 0
    try:
        positions = list(frame.f_code.co_positions())
        pos = positions[frame.f_lasti // 2]
        if pos[0] is not None:
            line = pos[0]
        if pos[2] is not None:
            col = pos[2]
    except (AttributeError, IndexError):  # pragma: no cover - Python < 3.11
        pass
    return (frame.f_code.co_filename, line, col + 1)


def call_source():
    """The source text of the user's call running now (``T.print(x + 1)``),
    or None where the source is not at hand."""
    frame = _user_frame()
    if frame is None:
        return None
    try:
        import linecache
        pos = list(frame.f_code.co_positions())[frame.f_lasti // 2]
        line, end_line, col, end_col = pos
        if None in pos:
            return None
        lines = [linecache.getline(frame.f_code.co_filename, n)
                 for n in range(line, end_line + 1)]
        if not all(lines):
            return None
        if len(lines) == 1:
            return lines[0].encode()[col:end_col].decode()
        lines[0] = lines[0].encode()[col:].decode()
        lines[-1] = lines[-1].encode()[:end_col].decode()
        return "".join(lines)
    except (AttributeError, IndexError, ValueError, UnicodeDecodeError):
        return None


def error(message: str) -> TileError:
    """A TileError at the user's current line."""
    return TileError(message, where())


def loc_text(loc) -> str:
    file, line, col = loc
    file = file.replace("\\", "\\\\").replace('"', '\\"')
    return f'loc("{file}":{line}:{col})'


class Region:
    """A block of operations; `parent` is the enclosing region."""

    __slots__ = ("ops", "parent", "kind", "owner", "args", "hoisted")

    def __init__(self, parent, kind, owner=None):
        self.ops = []
        self.parent = parent
        self.kind = kind  # func, kernel, parallel, pipelined, for, if, while
        self.owner = owner
        self.args = []
        self.hoisted = 0

    def encloses(self, other) -> bool:
        r = other
        while r is not None:
            if r is self:
                return True
            r = r.parent
        return False


class Op:
    """One operation. `head` is its text without regions and location (a
    string, or a callable giving it at print time so that later annotations,
    such as layouts, can change it)."""

    __slots__ = ("head", "loc", "regions", "attrs")

    def __init__(self, head, loc, regions=()):
        self.head = head
        self.loc = loc
        self.regions = list(regions)
        self.attrs = {}

    def text(self):
        return self.head(self) if callable(self.head) else self.head


class Value:
    """An SSA value of a scalar dtype (or a buffer's memref/fragment, with
    dtype None). Arithmetic is defined in values.py."""

    __slots__ = ("name", "dtype", "region", "origin", "affine", "span", "__weakref__")

    def __init__(self, name, dtype, region, origin=None):
        self.name = name
        self.dtype = dtype
        self.region = region
        # Integer values: {atom name: coefficient, 1: constant} when the value
        # is an affine function of other values (region extents use it).
        self.affine = None
        # What the value is, for output shapes: ("dim", param, axis) or
        # ("scalar", param); None otherwise.
        self.origin = origin
        # The block's thread index ("tid"), or a condition that holds for
        # the threads lo <= tid < hi (lo, hi; hi None: to the last), which
        # an `if` around tile ops makes a thread range (rewrite.py).
        self.span = None


class FunctionBuilder:
    """Builds one func.func."""

    def __init__(self, name: str, loc):
        self.name = name
        self.loc = loc
        self.params = []  # (Value, type text)
        self.entry = Region(None, "func")
        self.prologue = []  # constants and dims, printed first
        self.current = self.entry
        self.counter = 0
        self.constants = {}
        self.kernel = None  # the open tile.kernel op
        self.kernels = 0

    # -- names and values ---------------------------------------------------
    def fresh(self, hint="v"):
        self.counter += 1
        return f"%{hint}{self.counter}"

    def add_param(self, hint, type_text, dtype=None, origin=None):
        v = Value(self.fresh(hint), dtype, self.entry, origin)
        self.params.append((v, type_text))
        return v

    def emit(self, head, result_dtype=None, hint="v", loc=None, regions=(),
             result=True):
        """Appends an operation to the current region. `head` may contain
        `{result}` for the result name. Returns (value or None, op)."""
        loc = loc or where()
        value = None
        if result:
            value = Value(self.fresh(hint), result_dtype, self.current)
            text = head.replace("{result}", value.name) if isinstance(head, str) else head
        else:
            text = head
        op = Op(text, loc, regions)
        self.current.ops.append(op)
        return value, op

    def emit_hoisted(self, head, dtype, hint="v"):
        """Emits at the top of the innermost tile.kernel body when every
        operand is defined there or outside it (so loops that move ops, such
        as T.Pipelined's prologue, see it); in place otherwise. `head` names
        its operands' Values in `{result}`-style text already."""
        kernel = self.innermost("kernel")
        value = Value(self.fresh(hint), dtype, kernel or self.current)
        op = Op(head.replace("{result}", value.name), where())
        if kernel is None:
            value.region = self.current
            self.current.ops.append(op)
        else:
            at = getattr(kernel, "hoisted", 0)
            kernel.ops.insert(at, op)
            kernel.hoisted = at + 1
        return value

    def emit_before_body(self, region, head, dtype, hint="v"):
        """Emits `head` in `region`, an enclosing region of the current one,
        before the op whose body holds the current region (a view whose
        operands do not change in a loop goes before the loop, where
        T.Pipelined can move the copies through it ahead)."""
        value = Value(self.fresh(hint), dtype, region)
        op = Op(head.replace("{result}", value.name), where())
        at = next(i for i in range(len(region.ops) - 1, -1, -1)
                  if any(r.encloses(self.current) for r in region.ops[i].regions))
        region.ops.insert(at, op)
        return value

    def emit_outside_kernel(self, head, hint="v", dtype=None):
        """Emits `head(result_name)` before the open tile.kernel (where it is
        computed once, and the host sees it), or here outside kernels."""
        kernel = self.innermost("kernel")
        where_ = kernel.parent if kernel is not None else self.current
        value = Value(self.fresh(hint), dtype, where_)
        op = Op(head(value.name), where())
        if kernel is None:
            where_.ops.append(op)
        else:
            at = next(i for i, o in enumerate(where_.ops) if kernel in o.regions)
            where_.ops.insert(at, op)
        return value

    def emit_prologue(self, head, dtype, hint="c", origin=None):
        value = Value(self.fresh(hint), dtype, self.entry, origin)
        self.prologue.append(Op(head.replace("{result}", value.name), self.loc))
        return value

    def constant(self, literal: str, dtype, ir_type: str):
        key = (literal, ir_type)
        v = self.constants.get(key)
        if v is None:
            typed = "" if ir_type == "i1" else f" : {ir_type}"
            v = self.emit_prologue(f"{{result}} = arith.constant {literal}{typed}", dtype)
            self.constants[key] = v
        return v

    def check_visible(self, value: Value, what="value"):
        if value.region is None or value.region.encloses(self.current):
            return
        raise error(f"a {what} defined inside a {value.region.kind} body is used "
                    "outside it; keep values that live across bodies in T.alloc_var")

    # -- regions ------------------------------------------------------------
    def open_region(self, kind, owner, arg_hints=(), arg_dtype=None):
        region = Region(self.current, kind, owner)
        for hint in arg_hints:
            region.args.append(Value(self.fresh(hint), arg_dtype, region))
        owner.regions.append(region)
        self.current = region
        return region

    def close_region(self, region):
        assert self.current is region, "regions closed out of order"
        self.current = region.parent

    def leave_region(self, region, unwinding):
        """Closes `region` at the end of a `with` or loop body; when an
        exception unwinds through it, inner regions are abandoned too."""
        if unwinding or self.current is not region:
            self.current = region.parent
        else:
            self.close_region(region)

    def innermost(self, *kinds):
        r = self.current
        while r is not None:
            if r.kind in kinds:
                return r
            r = r.parent
        return None

    # -- printing -----------------------------------------------------------
    def print(self) -> str:
        params = ", ".join(f"{v.name}: {t}" for v, t in self.params)
        lines = [f"func.func @{self.name}({params}) {{"]
        for op in self.prologue:
            lines.append(f"  {op.text()} {loc_text(op.loc)}")
        self._print_ops(self.entry.ops, lines, 1)
        lines.append(f"  return {loc_text(self.loc)}")
        lines.append(f"}} {loc_text(self.loc)}")
        return "\n".join(lines)

    def _print_ops(self, ops, lines, depth):
        pad = "  " * depth
        for op in ops:
            head = op.text()
            if not op.regions:
                lines.append(f"{pad}{head} {loc_text(op.loc)}")
                continue
            lines.append(f"{pad}{head} {{")
            for i, region in enumerate(op.regions):
                if i:
                    lines.append(f"{pad}}} {op.attrs.get('separator', 'else')} {{")
                self._print_ops(region.ops, lines, depth + 1)
            lines.append(f"{pad}}} {loc_text(op.loc)}")


_state = threading.local()


def current_builder(what=None) -> FunctionBuilder:
    b = getattr(_state, "builder", None)
    if b is None:
        raise error(f"{what or 'this'} can only be used inside a T.prim_func, a "
                    "@tile.jit kernel body or a T.macro called from one")
    return b


def maybe_builder():
    return getattr(_state, "builder", None)


class building:
    """Context: `builder` is the current one."""

    def __init__(self, builder):
        self.builder = builder

    def __enter__(self):
        self.saved = getattr(_state, "builder", None)
        _state.builder = self.builder
        return self.builder

    def __exit__(self, *exc):
        _state.builder = self.saved
        return False
