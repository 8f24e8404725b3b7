"""Element types of tile.language (TileLang's names) and their IR spellings."""

from __future__ import annotations

from ..errors import TileError


class dtype(str):
    """An element type: ``T.float16``, ``T.int32`` ... (compare with ``==``,
    also against TileLang's strings such as ``"float16"``). As TileLang's, it
    is a string, its name: ``getattr(torch, T.bfloat16)`` is
    ``torch.bfloat16``."""

    def __new__(cls, *args):
        # T.dtype("float16"), T.dtype(T.float16), T.dtype(torch.float16):
        # TileLang's conversion to the canonical dtype.
        if len(args) == 1:
            return as_dtype(args[0])
        return super().__new__(cls, args[0])

    def __init__(self, *args):
        if len(args) == 1:  # T.dtype(x): __new__ gave an existing dtype
            return
        name, ir, bits, kind, code = args
        self.name = name
        self.ir = ir
        self.bits = bits
        self.kind = kind  # "float", "int", "uint", "bool", "index"
        # The extension's DType code (None: usable in kernels, not as a
        # parameter's element type).
        self.code = code

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def is_int(self):
        return self.kind in ("int", "uint", "bool", "index")

    @property
    def bytes(self):
        return max(1, self.bits // 8)

    itemsize = bytes

    def as_torch(self):
        """The torch dtype (TileLang's ``dtype.as_torch()``)."""
        return to_torch(self)

    def as_numpy(self):
        return to_numpy(self)

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self.name == other.name
        if isinstance(other, str):
            try:
                return self is as_dtype(other)
            except TileError:
                return False
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        # Unpickled as the canonical dtype of its name.
        return (as_dtype, (self.name,))

    def __repr__(self):
        return f"T.{self.name}"

    def __str__(self):
        return self.name

    def __call__(self, value):
        """``T.float32(1.5)``: a constant (or conversion) of this type."""
        from .values import cast
        return cast(value, self)


float16 = dtype("float16", "f16", 16, "float", 0)
bfloat16 = dtype("bfloat16", "bf16", 16, "float", 1)
float32 = dtype("float32", "f32", 32, "float", 2)
float64 = dtype("float64", "f64", 64, "float", 3)
float8_e4m3 = dtype("float8_e4m3", "f8E4M3FN", 8, "float", 4)
float8_e5m2 = dtype("float8_e5m2", "f8E5M2", 8, "float", 5)
bool_ = dtype("bool", "i1", 1, "bool", 6)
int8 = dtype("int8", "i8", 8, "int", 7)
int16 = dtype("int16", "i16", 16, "int", 8)
int32 = dtype("int32", "i32", 32, "int", 9)
int64 = dtype("int64", "i64", 64, "int", 10)
uint8 = dtype("uint8", "i8", 8, "uint", 11)
index = dtype("index", "index", 64, "index", 12)
# AMD CDNA3's fp8 (no infinity, no negative zero, one NaN).
float8_e4m3fnuz = dtype("float8_e4m3fnuz", "f8E4M3FNUZ", 8, "float", 13)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", "f8E5M2FNUZ", 8, "float", 14)
FLOAT8 = (float8_e4m3, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)
# Wider unsigned integers: kernel values (arithmetic, casts, local
# variables); the extension has no code for them, so no parameter has them.
uint16 = dtype("uint16", "i16", 16, "uint", None)
uint32 = dtype("uint32", "i32", 32, "uint", None)
uint64 = dtype("uint64", "i64", 64, "uint", None)

_BY_NAME = {
    d.name: d
    for d in (float16, bfloat16, float32, float64, float8_e4m3, float8_e5m2,
              float8_e4m3fnuz, float8_e5m2fnuz, bool_, int8, int16, int32,
              int64, uint8, uint16, uint32, uint64, index)
}
# TileLang's other names (C names, short forms, torch's fp8 spelling).
_ALIASES = {
    "half": float16, "float": float32, "double": float64, "bf16": bfloat16,
    "tfloat32": float32, "tf32": float32,
    "fp16": float16, "fp32": float32, "fp64": float64, "f16": float16,
    "f32": float32, "f64": float64, "float8_e4m3fn": float8_e4m3,
    "e4m3_float8": float8_e4m3, "e5m2_float8": float8_e5m2,
    "e4m3fnuz_float8": float8_e4m3fnuz, "e5m2fnuz_float8": float8_e5m2fnuz,
    "int": int32, "short": int16, "long": int64, "uint": uint32,
    "i8": int8, "i16": int16, "i32": int32, "i64": int64, "u8": uint8,
    "u16": uint16, "u32": uint32, "u64": uint64,
}
_BY_IR = {d.ir: d for d in _BY_NAME.values() if d.kind != "uint"}


def as_dtype(value) -> dtype:
    """A dtype from a dtype, a TileLang name, a torch or NumPy dtype."""
    if isinstance(value, dtype):
        return value
    if isinstance(value, str):
        d = _BY_NAME.get(value) or _ALIASES.get(value)
        if d is None:
            raise TileError(f"unknown dtype '{value}' (known: "
                            f"{', '.join(sorted(_BY_NAME))})")
        return d
    if value is bool:
        return bool_
    if value is int:
        return int32
    if value is float:
        return float32
    # torch.float16, numpy.float16 / numpy.dtype('float16')
    name = str(value)
    if name.startswith("torch."):
        name = name[len("torch."):]
        if name == "float8_e4m3fn":
            return float8_e4m3
    try:
        import numpy as np
        if isinstance(value, np.dtype) or (isinstance(value, type) and
                                           issubclass(value, np.generic)):
            name = np.dtype(value).name
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    d = _BY_NAME.get(name) or _ALIASES.get(name)
    if d is None:
        raise TileError(f"unsupported dtype {value!r}")
    return d


def from_ir(ir: str) -> dtype:
    return _BY_IR[ir]


def to_numpy(d: dtype):
    import numpy as np
    if d.name == "bfloat16" or d in FLOAT8:
        try:
            import ml_dtypes  # noqa: F401
            return np.dtype({"float8_e4m3": "float8_e4m3fn"}.get(d.name, d.name))
        except ImportError:
            raise TileError(f"NumPy has no {d.name}: pass torch tensors (or "
                            "install ml_dtypes)") from None
    if d is index:
        return np.dtype("int64")
    return np.dtype(d.name)


def to_torch(d: dtype):
    import torch
    name = {"float8_e4m3": "float8_e4m3fn", "index": "int64"}.get(d.name, d.name)
    return getattr(torch, name)
