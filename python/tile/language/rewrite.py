"""Python control flow in kernel bodies.

Kernel bodies (T.prim_func, T.macro, eager @tile.jit functions) are plain
Python run once to trace them. A few statements must mean something else
when they meet run-time values, so the body's syntax tree is rewritten
before it runs (locations are kept, so errors and the IR name the user's
lines):

- ``if c:`` runs the branch in Python when ``c`` is known while tracing,
  and becomes an ``scf.if`` when ``c`` is a run-time value;
- ``for x in it:`` goes through ``loop``: T.Parallel/T.Pipelined/T.serial
  (and ``range`` inside kernels) trace their body once, Python iterables
  unroll;
- ``x = v`` stores into ``x`` when ``x`` is a variable (T.alloc_var) or a
  T.Ref argument, and rebinds it otherwise;
- ``A: T.Tensor[...]`` (no value) annotates a tensor in eager kernels;
- ``and``/``or``/``not``/``a if c else b`` work on run-time values;
- ``return``, ``break`` and ``continue`` inside run-time control flow are
  errors (the body is traced once, not run).

Functions whose source cannot be read run unrewritten (plain tracing).
"""

from __future__ import annotations

import ast
import copy
import inspect
import operator
import textwrap
import types

from .builder import current_builder, error, maybe_builder
from .values import Deferred, convert, operand
from . import dtypes as dt

_PREFIX = "_tile_"
_RT = "_tile_rt_"


class _DropJumps(ast.NodeTransformer):
    """Removes the break and continue statements of one loop level."""

    def visit_Break(self, node):
        return ast.Pass()

    def visit_Continue(self, node):
        return ast.Pass()

    def visit_For(self, node):
        return node

    visit_While = visit_AsyncFor = visit_FunctionDef = visit_Lambda = visit_For


class _Rewriter(ast.NodeTransformer):
    def __init__(self):
        self.counter = 0
        self.loops = []  # token names of enclosing Python loops

    def fresh(self, what):
        self.counter += 1
        return f"{_PREFIX}{what}{self.counter}_"

    # Nested functions and classes are not part of this body.
    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node):
        return node

    def _rt(self, name, *args, node):
        call = ast.Call(
            func=ast.Attribute(value=ast.Name(id=_RT, ctx=ast.Load()), attr=name,
                               ctx=ast.Load()),
            args=list(args), keywords=[])
        return ast.copy_location(call, node)

    def _stmts(self, stmts):
        out = []
        for s in stmts:
            r = self.visit(s)
            if isinstance(r, list):
                out.extend(r)
            elif r is not None:
                out.append(r)
        return out

    # -- if ------------------------------------------------------------------
    def visit_If(self, node):
        test = self.visit(node.test)
        c = self.fresh("c")
        body = self._stmts(node.body)
        orelse = self._stmts(node.orelse)
        assign = ast.copy_location(
            ast.Assign(targets=[ast.Name(id=c, ctx=ast.Store())],
                       value=self._rt("branch", test, node=node)), node)

        def is_(value):
            return ast.copy_location(
                ast.Compare(left=ast.Name(id=c, ctx=ast.Load()), ops=[ast.Is()],
                            comparators=[ast.Constant(value=value)]), node)

        def with_(method, stmts):
            item = ast.withitem(context_expr=ast.copy_location(ast.Call(
                func=ast.Attribute(value=ast.Name(id=c, ctx=ast.Load()), attr=method,
                                   ctx=ast.Load()), args=[], keywords=[]), node),
                optional_vars=None)
            return ast.copy_location(
                ast.With(items=[item], body=copy.deepcopy(stmts) or [ast.Pass()]), node)

        runtime = [with_("then_", body)]
        if orelse:
            runtime.append(with_("else_", orelse))
        static = ast.copy_location(
            ast.If(test=is_(True), body=body or [ast.Pass()],
                   orelse=[ast.copy_location(
                       ast.If(test=is_(False), body=orelse or [ast.Pass()],
                              orelse=runtime), node)]), node)
        return [assign, static]

    # -- loops ---------------------------------------------------------------
    def visit_For(self, node):
        token = self.fresh("l")
        it = node.iter
        if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                and it.func.id == "range"):
            it = ast.copy_location(ast.Call(
                func=ast.Attribute(value=ast.Name(id=_RT, ctx=ast.Load()),
                                   attr="range", ctx=ast.Load()),
                args=it.args, keywords=it.keywords), it)
        it = self.visit(it)
        self.loops.append(token)
        body = self._stmts(node.body)
        self.loops.pop()
        orelse = self._stmts(node.orelse)
        mark = ast.copy_location(ast.Assign(
            targets=[ast.Name(id=token, ctx=ast.Store())],
            value=self._rt("region_token", node=node)), node)
        loop = ast.copy_location(ast.For(
            target=node.target, iter=self._rt("loop", it, node=node),
            body=body or [ast.Pass()], orelse=orelse, type_comment=None), node)
        return [mark, loop]

    def visit_While(self, node):
        """`while test: body` becomes
            w = while_(lambda: test)     # None: the test is a Python value
            if w is None:
                while static_cond(test): body
            else:
                with w: body             # scf.while, the test its `before`
        """
        token = self.fresh("l")
        visited = self.visit(node.test)
        test = self._rt("static_cond", visited, node=node)
        self.loops.append(token)
        body = self._stmts(node.body)
        self.loops.pop()
        mark = ast.copy_location(ast.Assign(
            targets=[ast.Name(id=token, ctx=ast.Store())],
            value=self._rt("region_token", node=node)), node)
        static = ast.copy_location(ast.While(test=test, body=body,
                                             orelse=self._stmts(node.orelse)), node)
        if node.orelse:
            return [mark, static]
        w = self.fresh("w")
        lam = ast.copy_location(ast.Lambda(
            args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=[]),
            body=copy.deepcopy(visited)), node)
        start = ast.copy_location(ast.Assign(
            targets=[ast.Name(id=w, ctx=ast.Store())],
            value=self._rt("while_", lam, node=node)), node)
        # In the kernel's loop a break or continue is an error (the check
        # _jump put before it raises); the statement itself goes, as Python
        # allows none outside a loop.
        runtime_body = _DropJumps().visit(ast.Module(body=copy.deepcopy(body),
                                                     type_ignores=[])).body
        runtime = ast.copy_location(ast.With(items=[ast.withitem(
            context_expr=ast.Name(id=w, ctx=ast.Load()), optional_vars=None)],
            body=runtime_body or [ast.Pass()]), node)
        choose = ast.copy_location(ast.If(
            test=ast.copy_location(ast.Compare(
                left=ast.Name(id=w, ctx=ast.Load()), ops=[ast.Is()],
                comparators=[ast.Constant(value=None)]), node),
            body=[static], orelse=[runtime]), node)
        return [mark, start, choose]

    def _jump(self, node, kind):
        if not self.loops:
            return node
        check = ast.copy_location(ast.Expr(value=self._rt(
            "jump", ast.Name(id=self.loops[-1], ctx=ast.Load()),
            ast.Constant(value=kind), node=node)), node)
        return [check, node]

    def visit_Break(self, node):
        return self._jump(node, "break")

    def visit_Continue(self, node):
        return self._jump(node, "continue")

    def visit_Return(self, node):
        value = self.visit(node.value) if node.value is not None else ast.Constant(value=None)
        node.value = self._rt("ret", value, ast.Name(id=_PREFIX + "entry_", ctx=ast.Load()),
                              node=node)
        return node

    # -- assignments ---------------------------------------------------------
    def _assign_name(self, name, value, node):
        """`name = assign(value, <old binding or UNBOUND>)`."""
        old = self.fresh("o")
        probe = ast.copy_location(ast.Try(
            body=[ast.copy_location(ast.Assign(
                targets=[ast.Name(id=old, ctx=ast.Store())],
                value=ast.Name(id=name, ctx=ast.Load())), node)],
            handlers=[ast.copy_location(ast.ExceptHandler(
                type=ast.Name(id="NameError", ctx=ast.Load()), name=None,
                body=[ast.copy_location(ast.Assign(
                    targets=[ast.Name(id=old, ctx=ast.Store())],
                    value=ast.Constant(value=None)), node)]), node)],
            orelse=[], finalbody=[]), node)
        store = ast.copy_location(ast.Assign(
            targets=[ast.Name(id=name, ctx=ast.Store())],
            value=self._rt("assign", value, ast.Name(id=old, ctx=ast.Load()),
                           ast.Constant(value=name), node=node)),
            node)
        return [probe, store]

    def visit_Assign(self, node):
        value = self.visit(node.value)
        if len(node.targets) != 1:
            node.value = value
            return node
        target = node.targets[0]
        if isinstance(target, ast.Name):
            return self._assign_name(target.id, value, node)
        if (isinstance(target, (ast.Tuple, ast.List))
                and all(isinstance(e, ast.Name) for e in target.elts)):
            tmp = self.fresh("t")
            out = [ast.copy_location(ast.Assign(
                targets=[ast.Name(id=tmp, ctx=ast.Store())],
                value=self._rt("unpack", value, ast.Constant(value=len(target.elts)),
                               node=node)), node)]
            for i, e in enumerate(target.elts):
                item = ast.copy_location(ast.Subscript(
                    value=ast.Name(id=tmp, ctx=ast.Load()), slice=ast.Constant(value=i),
                    ctx=ast.Load()), node)
                out.extend(self._assign_name(e.id, item, node))
            return out
        node.value = value
        return node

    def visit_AugAssign(self, node):
        value = self.visit(node.value)
        if not isinstance(node.target, ast.Name):
            node.value = value
            return node
        op = type(node.op).__name__
        call = self._rt("augassign", ast.Name(id=node.target.id, ctx=ast.Load()),
                        ast.Constant(value=op), value, node=node)
        return ast.copy_location(ast.Assign(
            targets=[ast.Name(id=node.target.id, ctx=ast.Store())], value=call), node)

    def visit_AnnAssign(self, node):
        if not isinstance(node.target, ast.Name) or not node.simple:
            return node
        name = node.target.id
        if node.value is None:
            call = self._rt("annotate", ast.Name(id=name, ctx=ast.Load()),
                            node.annotation, ast.Constant(value=name), node=node)
            return ast.copy_location(ast.Assign(
                targets=[ast.Name(id=name, ctx=ast.Store())], value=call), node)
        value = self._rt("typed", self.visit(node.value), node.annotation, node=node)
        return self._assign_name(name, value, node)

    # -- expressions ---------------------------------------------------------
    def visit_BoolOp(self, node):
        values = [self.visit(v) for v in node.values]
        lazies = [ast.copy_location(ast.Lambda(
            args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                               kw_defaults=[], kwarg=None, defaults=[]), body=v), v)
                  for v in values[1:]]
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        return self._rt(name, values[0], *lazies, node=node)

    def visit_UnaryOp(self, node):
        node.operand = self.visit(node.operand)
        if isinstance(node.op, ast.Not):
            return self._rt("not_", node.operand, node=node)
        return node

    def visit_IfExp(self, node):
        def lazy(v):
            return ast.copy_location(ast.Lambda(
                args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                                   kw_defaults=[], kwarg=None, defaults=[]),
                body=self.visit(v)), v)
        return self._rt("ifexp", self.visit(node.test), lazy(node.body), lazy(node.orelse),
                        node=node)


_cache = {}


def rewrite(func):
    """The rewritten version of `func`, or `func` itself when its source is
    unavailable."""
    code = func.__code__
    made = _cache.get(code)
    if made is None:
        made = _cache[code] = _compile(func)
    if made is False:
        return func
    closure = []
    original = dict(zip(code.co_freevars, func.__closure__ or ()))
    for name in made.co_freevars:
        if name == _RT:
            closure.append(types.CellType(_runtime))
        elif name in original:
            closure.append(original[name])
        else:  # pragma: no cover - the rewrite adds no other free names
            closure.append(types.CellType())
    fn = types.FunctionType(made, func.__globals__, func.__name__, func.__defaults__,
                            tuple(closure))
    fn.__kwdefaults__ = func.__kwdefaults__
    fn.__annotations__ = getattr(func, "__annotations__", {})
    fn.__wrapped_tile__ = func
    return fn


def _compile(func):
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return False
    source = "".join(lines)
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return False
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)) or \
            fdef.name != func.__code__.co_name:
        return False
    fdef.decorator_list = []
    # Named apart from the original so that the body's references to the
    # function's own name (recursion) still reach the global.
    fdef.name = _PREFIX + "fn_"
    rewriter = _Rewriter()
    body = rewriter._stmts(fdef.body)
    entry = ast.Assign(targets=[ast.Name(id=_PREFIX + "entry_", ctx=ast.Store())],
                       value=ast.Call(func=ast.Attribute(
                           value=ast.Name(id=_RT, ctx=ast.Load()), attr="region_token",
                           ctx=ast.Load()), args=[], keywords=[]))
    ast.copy_location(entry, fdef.body[0])
    ast.fix_missing_locations(entry)
    # Keep a docstring first; the entry token right after it.
    if body and isinstance(body[0], ast.Expr) and isinstance(
            getattr(body[0], "value", None), ast.Constant):
        fdef.body = [body[0], entry] + body[1:]
    else:
        fdef.body = [entry] + body
    freevars = list(func.__code__.co_freevars)
    maker = ast.FunctionDef(
        name=_PREFIX + "maker_",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in [_RT] + freevars],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                           defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[maker], type_ignores=[])
    ast.fix_missing_locations(module)
    for node in ast.walk(module):
        if hasattr(node, "lineno"):
            node.lineno += first - 1
            if hasattr(node, "end_lineno") and node.end_lineno is not None:
                node.end_lineno += first - 1
            if indent and hasattr(node, "col_offset"):
                node.col_offset += indent
                if getattr(node, "end_col_offset", None) is not None:
                    node.end_col_offset += indent
    try:
        code = compile(module, func.__code__.co_filename, "exec")
    except SyntaxError:  # pragma: no cover - the rewrite keeps valid syntax
        return False
    maker_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    made = next(c for c in maker_code.co_consts
                if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    return made.replace(co_name=func.__code__.co_name,
                        co_qualname=func.__code__.co_qualname)


# ---------------------------------------------------------------------------
# What rewritten code calls
# ---------------------------------------------------------------------------


class _RuntimeIf:
    def __init__(self, cond):
        self.cond = cond
        self.op = None
        # (lo, hi) when the then-branch became a tile.thread_range.
        self.range = None

    def then_(self):
        return _IfRegion(self, 0)

    def else_(self):
        return _IfRegion(self, 1)


class _IfRegion:
    def __init__(self, branch, index):
        self.branch = branch
        self.index = index

    def __enter__(self):
        b = current_builder("a run-time if")
        if self.index == 0:
            _, self.branch.op = b.emit(f"scf.if {self.branch.cond.name}", result=False)
        self.region = b.open_region("if", self.branch.op)
        return self

    def __exit__(self, exc_type, *rest):
        b = current_builder()
        b.leave_region(self.region, exc_type is not None)
        if exc_type is None:
            if self.index == 0:
                self.branch.range = _as_thread_range(b, self.branch, self.region)
            elif self.branch.range is not None:
                _hoist_else(b, self.branch, self.region)
        return False


# Tile ops that are the running thread's, not the block's.
_THREAD_OPS = {"tile.thread_id", "tile.load", "tile.store", "tile.print",
               "tile.fence", "tile.barrier_arrive", "tile.barrier_wait"}


def _op_name(op):
    """The name of an op of the builder (`tile.copy`), and whether it has a
    result."""
    text = op.text()
    result = " = " in text
    return (text.split(" = ", 1)[1] if result else text).split(" ", 1)[0], result


def _has_tile_ops(region):
    """Whether `region` (or a region in it) has an op of the block."""
    for op in region.ops:
        name, _ = _op_name(op)
        if name.startswith("tile.") and name not in _THREAD_OPS:
            return True
        if any(_has_tile_ops(r) for r in op.regions):
            return True
    return False


def _is_pure(op):
    """An op that only computes a value (arithmetic on scalars)."""
    name, result = _op_name(op)
    return result and not op.regions and (
        name.startswith(("arith.", "math.", "index.")) or name == "tile.thread_id")


def _in_thread_range(region):
    while region is not None:
        if region.kind == "thread_range":
            return True
        region = region.parent
    return False


def _as_thread_range(b, branch, region):
    """TileLang's `if tx < 128:` (tx the block's thread index, compared with
    whole warps) around tile ops: the branch becomes a tile.thread_range,
    whose tile ops are those threads' (as T.ws). Returns (lo, hi), or None
    where the branch stays an scf.if."""
    from .ops import _kernel
    span = branch.cond.span
    if not isinstance(span, tuple) or _in_thread_range(region.parent):
        return None
    threads = _kernel().threads
    lo, hi = span[0], threads if span[1] is None else min(span[1], threads)
    if lo % 32 or hi % 32 or lo >= hi or (lo == 0 and hi == threads):
        return None
    # An elif of a chain of ranges may be one with per-thread code only.
    branch.op.attrs["thread_span"] = (lo, hi)
    if not _has_tile_ops(region):
        return None
    _make_thread_range(branch.op, region, lo, hi)
    return lo, hi


def _make_thread_range(op, region, lo, hi):
    op.head = f"tile.thread_range {lo} to {hi}"
    region.kind = "thread_range"


def _hoist_else(b, branch, region):
    """The else of an `if` that became a thread range: the threads outside
    it. An `elif` chain of such ranges (`elif tx >= 128 and tx < 256:`)
    follows it; other code runs in the rest of the block's threads, which
    must be one range."""
    from .builder import Op
    from .ops import _kernel
    branch.op.regions.remove(region)
    parent = b.current
    at = parent.ops.index(branch.op) + 1
    # The chain's other ranges: ifs over whole warps (those of per-thread code
    # too), each over threads none of the earlier ones has.
    taken = [branch.range]
    for op in region.ops:
        span = op.attrs.get("thread_span")
        if span is None:
            continue
        for lo, hi in taken:
            if span[0] < hi and lo < span[1]:
                raise error(f"an elif over threads {span[0]} to {span[1]} overlaps the "
                            f"earlier branch's {lo} to {hi}: give it bounds of its own "
                            "(`elif tx >= ... and tx < ...`)")
        taken.append(span)
        if _op_name(op)[0] == "scf.if" and len(op.regions) == 1:
            _make_thread_range(op, op.regions[0], *span)
    ranges = [op for op in region.ops if _op_name(op)[0] == "tile.thread_range"]
    if ranges and all(op in ranges or _is_pure(op) for op in region.ops):
        # The chain's conditions (arithmetic every thread may compute) and
        # its ranges.
        parent.ops[at:at] = region.ops
        return
    threads = _kernel().threads
    lo, hi = branch.range
    if lo != 0 and hi != threads:
        raise error(f"the else of an `if` over threads {lo} to {hi} runs in the "
                    "threads before and after them: write it as ranges of its own "
                    "(`elif tx < ...`)")
    if ranges:
        raise error("the else of an `if` over a thread range mixes thread ranges "
                    "with other code")
    other = (hi, threads) if lo == 0 else (0, lo)
    region.kind = "thread_range"
    parent.ops.insert(at, Op(f"tile.thread_range {other[0]} to {other[1]}",
                             branch.op.loc, [region]))


class _RuntimeWhile:
    """An scf.while whose `before` region computed the test; entering it
    opens the body (which ends in scf.yield)."""

    def __init__(self, op):
        self.op = op

    def __enter__(self):
        self.region = current_builder().open_region("while", self.op)
        return self

    def __exit__(self, exc_type, *rest):
        b = current_builder()
        if exc_type is None:
            b.emit("scf.yield", result=False)
        b.leave_region(self.region, exc_type is not None)
        return False


class _Runtime:
    """The helpers rewritten bodies call (bound to the name _tile_rt_)."""

    UNBOUND = None

    @staticmethod
    def branch(test):
        if isinstance(test, Deferred) or _is_value(test):
            v = operand(test)
            if _is_value(v):
                if maybe_builder() is None:
                    raise error("a run-time condition outside a kernel")
                return _RuntimeIf(convert(v, dt.bool_))
            return bool(v)
        return bool(test)

    @staticmethod
    def while_(test):
        """A `while` over a run-time condition (`test()` a Value in a
        kernel) as an scf.while; None when the test is a Python value."""
        b = maybe_builder()
        if b is None:
            return None
        _, op = b.emit("scf.while : () -> ()", result=False)
        op.attrs["separator"] = "do"
        region = b.open_region("while", op)
        ok = False
        try:
            v = test()
            if isinstance(v, Deferred) or _is_value(v):
                v = operand(v)
            if _is_value(v):
                cond = convert(v, dt.bool_)
                b.emit(f"scf.condition({cond.name})", result=False)
                ok = True
        finally:
            b.leave_region(region, not ok)
        if not ok:
            b.current.ops.remove(op)
            return None
        return _RuntimeWhile(op)

    @staticmethod
    def static_cond(test):
        if isinstance(test, Deferred) or _is_value(test):
            v = operand(test)
            if _is_value(v):
                raise error("a while loop over a run-time condition cannot have an "
                            "else clause; put that code after the loop")
            return bool(v)
        return bool(test)

    @staticmethod
    def loop(it):
        from .ops import _Loop
        if isinstance(it, _Loop):
            return iter(it)
        if _is_value(it) or isinstance(it, Deferred):
            raise error("cannot iterate over a run-time value")
        return it

    @staticmethod
    def range(*args):
        if maybe_builder() is None:
            return range(*args)
        from .ops import kernel_range
        return kernel_range(*args)

    @staticmethod
    def region_token():
        b = maybe_builder()
        return None if b is None else b.current

    @staticmethod
    def jump(token, kind):
        b = maybe_builder()
        if b is not None and token is not None and b.current is not token:
            raise error(f"'{kind}' inside a loop or if that the kernel runs is not "
                        "supported (the body is traced once); restructure with "
                        "conditions")

    @staticmethod
    def ret(value, token):
        b = maybe_builder()
        if b is not None and token is not None and b.current is not token:
            raise error("'return' inside a loop or if that the kernel runs is not "
                        "supported (the body is traced once)")
        return value

    @staticmethod
    def assign(value, old, name=None):
        from .buffers import Buffer, ElementRef, Var
        if isinstance(old, (Var, ElementRef)) and not _is_place(value):
            old.store(value)
            return old
        # A buffer keeps the first name it is assigned to (TileLang's buffer
        # names, which T.print shows).
        if name is not None:
            buf = value.buffer if isinstance(value, Var) else value
            if isinstance(buf, Buffer) and getattr(buf, "assigned_name", None) is None:
                buf.assigned_name = name
        if isinstance(value, ElementRef) and maybe_builder() is not None:
            return value.load()
        return value

    @staticmethod
    def augassign(old, op, value):
        from .buffers import ElementRef, Var
        fn = {"Add": operator.add, "Sub": operator.sub, "Mult": operator.mul,
              "Div": operator.truediv, "FloorDiv": operator.floordiv,
              "Mod": operator.mod, "BitAnd": operator.and_, "BitOr": operator.or_,
              "BitXor": operator.xor, "LShift": operator.lshift,
              "RShift": operator.rshift, "Pow": operator.pow}
        ifn = {"Add": operator.iadd, "Sub": operator.isub, "Mult": operator.imul,
               "Div": operator.itruediv, "FloorDiv": operator.ifloordiv,
               "Mod": operator.imod, "BitAnd": operator.iand, "BitOr": operator.ior,
               "BitXor": operator.ixor, "LShift": operator.ilshift,
               "RShift": operator.irshift, "Pow": operator.ipow}
        if isinstance(old, (Var, ElementRef)):
            old.store(fn[op](old, value))
            return old
        return ifn[op](old, value)

    @staticmethod
    def unpack(value, n):
        items = tuple(value)
        if len(items) != n:
            raise error(f"cannot unpack {len(items)} values into {n} names")
        return items

    @staticmethod
    def annotate(value, annotation, name):
        from .frontend import annotate
        return annotate(value, annotation, name)

    @staticmethod
    def typed(value, annotation):
        if isinstance(annotation, (dt.dtype, str)):
            return convert(value, dt.as_dtype(annotation))
        return value

    @staticmethod
    def and_(first, *rest):
        return _logic(True, first, rest)

    @staticmethod
    def or_(first, *rest):
        return _logic(False, first, rest)

    @staticmethod
    def not_(x):
        if isinstance(x, Deferred) or _is_value(x):
            v = operand(x)
            if _is_value(v):
                from .values import invert
                return invert(convert(v, dt.bool_))
            return not v
        return not x

    @staticmethod
    def ifexp(test, then_fn, else_fn):
        if isinstance(test, Deferred) or _is_value(test):
            v = operand(test)
            if _is_value(v):
                from .values import select
                return select(v, then_fn(), else_fn())
            return then_fn() if v else else_fn()
        return then_fn() if test else else_fn()


def _logic(is_and, first, rest):
    from .values import binary
    acc = first
    for lazy in rest:
        a = operand(acc) if (isinstance(acc, Deferred) or _is_value(acc)) else acc
        if not _is_value(a):
            # Python's short circuit on a known value.
            if (not a) if is_and else a:
                return acc
            acc = lazy()
            continue
        b = lazy()
        b = operand(b) if (isinstance(b, Deferred) or _is_value(b)) else b
        b = convert(b, dt.bool_) if _is_value(b) else bool(b)
        acc = binary("and" if is_and else "or", convert(a, dt.bool_), b)
    return acc


def _is_value(x):
    from .builder import Value
    return isinstance(x, Value)


def _is_place(x):
    from .buffers import Buffer, BufferRegion, Var
    return isinstance(x, (Var, Buffer, BufferRegion))


_runtime = _Runtime()


# ---------------------------------------------------------------------------
# What a function's body declares (for @tile.jit's modes and arguments)
# ---------------------------------------------------------------------------


class BodyInfo:
    """What the body of a @tile.jit function shows without running it:
    `annotated`, the names annotated without a value (``A: T.Tensor(...)``:
    tensor parameters an eager body declares); `prim_func`, whether it
    defines a T.prim_func (the lazy style); `kernel`, whether it launches a
    T.Kernel itself (the eager style)."""

    def __init__(self):
        self.annotated = set()
        self.prim_func = False
        self.kernel = False


def _attr_name(node):
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


_body_infos = {}


def body_info(func) -> BodyInfo:
    code = func.__code__
    info = _body_infos.get(code)
    if info is not None:
        return info
    info = BodyInfo()
    try:
        source = textwrap.dedent(inspect.getsource(func))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        _body_infos[code] = info
        return info
    fdef = tree.body[0] if tree.body else None
    if isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        todo = list(fdef.body)
        while todo:
            node = todo.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_attr_name(d) == "prim_func" for d in node.decorator_list):
                    info.prim_func = True
                continue
            if isinstance(node, (ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.AnnAssign) and node.value is None and \
                    isinstance(node.target, ast.Name):
                info.annotated.add(node.target.id)
            if isinstance(node, ast.With):
                for item in node.items:
                    if _attr_name(item.context_expr) == "Kernel":
                        info.kernel = True
            todo.extend(ast.iter_child_nodes(node))
    _body_infos[code] = info
    return info
