"""tile.utils.tensor: TileLang's tensor helpers (``tilelang.utils.tensor``).

- ``TensorSupplyType`` and ``get_tensor_supply(kind)``: a function making a
  random (or zero, one) input for a kernel parameter, as TileLang's
  profiler and autotuner do: torch tensors on the GPU, NumPy arrays for the
  CPU target;
- ``torch_assert_close(a, b, rtol=, atol=, max_mismatched_ratio=)``: closeness
  with a budget of mismatched elements (torch tensors or NumPy arrays);
- ``map_torch_type(name)``: the torch dtype of a TileLang dtype name.
"""

from __future__ import annotations

import enum

from ..errors import TileError
from ..language import dtypes as dt


class TensorSupplyType(enum.Enum):
    """How profilers and autotuners fill a kernel's inputs (TileLang's)."""

    Integer = 1  # integers in [-2, 2] ([0, 2] unsigned, [-128, 127] rounded for fp8)
    Uniform = 2  # uniform in [-1, 1)
    Normal = 3  # normal with mean -1 and deviation 1 (as TileLang's)
    Randn = 4  # standard normal
    Zero = 5
    One = 6
    Auto = 7  # floats (16/32 bits) uniform in [-1, 1), the rest as Integer


class KernelParam:
    """A kernel parameter as profilers see it: ``dtype`` (a tile dtype),
    ``shape`` (ints; None for a run-time dim), ``name``."""

    def __init__(self, dtype, shape, name=""):
        self.dtype = dt.as_dtype(dtype) if dtype is not None else dt.uint8
        self.shape = list(shape)
        self.name = name

    @classmethod
    def from_param(cls, param):
        """From a compiled kernel's parameter (kernel.params[i])."""
        if param.kind == "scalar":
            return cls(param.dtype, [], param.name)
        if param.kind == "pointer":
            return cls(param.dtype, [None], param.name)
        shape = [value if kind == 0 else None for kind, value, _ in param.sizes]
        return cls(param.dtype, shape, param.name)

    def torch_dtype(self):
        return dt.to_torch(self.dtype)

    def is_float8(self):
        return self.dtype in dt.FLOAT8

    def is_float4(self):
        return False

    def is_unsigned(self):
        return self.dtype.kind == "uint"

    def is_boolean(self):
        return self.dtype.kind == "bool"

    def is_scalar(self):
        return not self.shape

    def __repr__(self):
        return f"KernelParam({self.name!r}, {self.dtype.name}, {self.shape})"


def map_torch_type(intype):
    """The torch dtype of a dtype name (``"float16"``, ``"e4m3_float8"``, a
    tile dtype, ...)."""
    return dt.to_torch(dt.as_dtype(intype))


def is_float8_dtype(dtype) -> bool:
    """Whether `dtype` (torch, NumPy, tile or a name) is one of the fp8 types."""
    try:
        return dt.as_dtype(dtype) in dt.FLOAT8
    except TileError:
        return False


def _default_device():
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def get_tensor_supply(supply_type=TensorSupplyType.Integer, device=None):
    """A function ``supply(param) -> tensor`` filling a tensor of `param`'s
    shape and dtype as `supply_type` says. `device`: ``"cuda"`` (torch
    tensors), ``"cpu"`` (NumPy arrays, what the CPU target takes); default:
    cuda when torch sees a GPU, else cpu. It draws from torch's random
    generator on the GPU and NumPy's global one on the CPU, so
    ``tile.testing.set_random_seed`` fixes both."""
    if not isinstance(supply_type, TensorSupplyType):
        raise TypeError(f"supply_type must be a tile.TensorSupplyType, got {supply_type!r}")

    def supply(param):
        if not isinstance(param, KernelParam):
            param = KernelParam.from_param(param) if hasattr(param, "sizes") else \
                KernelParam(param.dtype, param.shape, getattr(param, "name", ""))
        if not param.shape:
            raise ValueError(f"parameter '{param.name}' is a scalar: a tensor supply makes "
                             "tensors only (pass the inputs, e.g. with set_autotune_inputs)")
        if any(not isinstance(s, int) for s in param.shape):
            raise ValueError(f"parameter '{param.name}' has a dynamic shape {param.shape}: a "
                             "tensor supply needs static shapes (pass the inputs, e.g. with "
                             "set_autotune_inputs or input_tensors=)")
        where = device or _default_device()
        if where == "cpu":
            return _numpy_tensor(param, supply_type)
        return _torch_tensor(param, supply_type, where)

    return supply


def _kind_of(param, supply_type):
    """What to draw: ("int", low, high), ("uniform",), ("normal", mean),
    ("zero",), ("one",)."""
    d = param.dtype
    integer = None
    if param.is_unsigned():
        integer = ("int", 0, 3)
    elif param.is_float8():
        integer = ("fp8",)
    elif param.is_boolean():
        integer = ("int", 0, 2)
    if supply_type is TensorSupplyType.Auto:
        if integer:
            return integer
        if d.name in ("float16", "float32", "bfloat16"):
            return ("uniform",)
        return ("int", -2, 3)
    if d.name == "int8" and supply_type in (TensorSupplyType.Uniform, TensorSupplyType.Normal):
        return ("one",)
    if supply_type is TensorSupplyType.Integer:
        return integer or ("int", -2, 3)
    return {TensorSupplyType.Uniform: ("uniform",), TensorSupplyType.Normal: ("normal", -1.0),
            TensorSupplyType.Randn: ("normal", 0.0), TensorSupplyType.Zero: ("zero",),
            TensorSupplyType.One: ("one",)}[supply_type]


def _numpy_tensor(param, supply_type):
    import numpy as np
    shape = tuple(param.shape)
    target = dt.to_numpy(param.dtype)
    kind = _kind_of(param, supply_type)
    if kind[0] == "int":
        host = np.random.randint(kind[1], kind[2], size=shape)
    elif kind[0] == "fp8":
        # Integers in [-128, 127] rounded to fp8, as TileLang's int8 -> fp8 cast.
        host = np.random.randint(-128, 128, size=shape).astype(np.float32)
    elif kind[0] == "uniform":
        host = np.random.uniform(-1.0, 1.0, size=shape)
    elif kind[0] == "normal":
        host = np.random.normal(kind[1], 1.0, size=shape)
    elif kind[0] == "zero":
        host = np.zeros(shape)
    else:
        host = np.ones(shape)
    return np.ascontiguousarray(host.astype(np.float32 if param.dtype.is_float else
                                            np.int64).astype(target))


def _torch_tensor(param, supply_type, device):
    import torch
    shape = list(param.shape)
    target = param.torch_dtype()
    kind = _kind_of(param, supply_type)
    if kind[0] == "int":
        return torch.randint(kind[1], kind[2], shape, device=device).to(target)
    if kind[0] == "fp8":
        return torch.randint(-128, 128, shape, device=device, dtype=torch.int8).to(target)
    if kind[0] == "uniform":
        return torch.empty(shape, device=device, dtype=torch.float32).uniform_(-1.0, 1.0).to(target)
    if kind[0] == "normal":
        return torch.empty(shape, device=device, dtype=torch.float32).normal_(kind[1], 1.0).to(target)
    if kind[0] == "zero":
        return torch.zeros(shape, device=device, dtype=target)
    return torch.ones(shape, device=device, dtype=target)


# ---------------------------------------------------------------------------
# Comparison
# ---------------------------------------------------------------------------


def _is_torch(x):
    return type(x).__module__.startswith("torch")


def _describe(x):
    """(shape, dtype name, device) of a torch tensor or an array."""
    import numpy as np
    if _is_torch(x):
        return tuple(x.shape), str(x.dtype).replace("torch.", ""), str(x.device)
    a = np.asarray(x)
    return tuple(a.shape), a.dtype.name, "cpu"


def _as_float64(x):
    import numpy as np
    if _is_torch(x):
        import torch
        x = x.detach()
        if x.is_complex():
            return x.cpu().numpy()
        return x.to(device="cpu", dtype=torch.float64).numpy()
    a = np.asarray(x)
    if a.dtype.kind in "fiub" or a.dtype.name in ("bfloat16",) or "float8" in a.dtype.name:
        return a.astype(np.float64)
    return a


def torch_assert_close(tensor_a, tensor_b, rtol=1e-2, atol=1e-3, max_mismatched_ratio=0.001,
                       verbose=False, equal_nan=True, check_device=True, check_dtype=True,
                       check_layout=True, check_stride=False, base_name="LHS",
                       ref_name="RHS"):
    """Asserts that `tensor_a` and `tensor_b` (torch tensors or NumPy arrays)
    are close elementwise (|a - b| <= atol + rtol * |b|), allowing at most
    ``int(max_mismatched_ratio * size)`` elements that are not; raises
    AssertionError naming the first mismatch and the largest differences.
    Shapes must agree, and dtypes and devices where `check_dtype` /
    `check_device` say so. Returns True."""
    import numpy as np
    shape_a, dtype_a, device_a = _describe(tensor_a)
    shape_b, dtype_b, device_b = _describe(tensor_b)
    if shape_a != shape_b:
        raise AssertionError(f"{base_name} has shape {shape_a}, {ref_name} {shape_b}")
    if check_dtype and dtype_a != dtype_b and _is_torch(tensor_a) == _is_torch(tensor_b):
        raise AssertionError(f"{base_name} has dtype {dtype_a}, {ref_name} {dtype_b}")
    if check_device and device_a != device_b and _is_torch(tensor_a) and _is_torch(tensor_b):
        raise AssertionError(f"{base_name} is on {device_a}, {ref_name} on {device_b}")
    a, b = _as_float64(tensor_a), _as_float64(tensor_b)
    with np.errstate(invalid="ignore"):
        close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    total = close.size
    bad = total - int(close.sum())
    allowed = int(total * max_mismatched_ratio)
    if verbose:
        print(f"Number of mismatched elements: {bad} / {total} (allowed: {allowed})")
    if bad <= allowed:
        return True
    flat = int(np.argmin(close.reshape(-1)))
    where = [int(i) for i in np.unravel_index(flat, shape_a)] if shape_a else []
    x, y = a.reshape(-1)[flat], b.reshape(-1)[flat]
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = np.abs(a - b)
        rel = diff / (np.abs(b) + 1e-12)
    raise AssertionError(
        f"too many mismatched elements: {bad} of {total} elements differ beyond rtol {rtol}, "
        f"atol {atol} (at most {allowed}, {max_mismatched_ratio * 100:.2f}%, allowed); "
        f"first at {where}: {base_name}={x:.6g}, {ref_name}={y:.6g}; greatest absolute "
        f"difference {np.nanmax(diff):.6g}, greatest relative difference {np.nanmax(rel):.6g}")


__all__ = ["TensorSupplyType", "KernelParam", "get_tensor_supply", "map_torch_type",
           "is_float8_dtype", "torch_assert_close"]
