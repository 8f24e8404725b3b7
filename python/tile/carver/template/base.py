"""tile.carver.template.base: BaseTemplate, what every template shares
(``tilelang.carver.template.BaseTemplate``), and Computation, what
``equivalent_function()`` gives.

A template is a dataclass of an operation's sizes and dtypes; building one
checks them. ``.with_arch(arch)`` picks the device (a TileDevice, or a
target such as "sm_80"; unset, ``auto_infer_current_arch()`` on first use)
and ``.recommend_hints(topk)`` gives up to `topk` Hints, best first.

TileLang's ``equivalent_function()`` is a TVM PrimFunc of the computation,
which the roller analyses. tile has no TVM: it is a Computation, the
operation's tensors and a NumPy reference of what it computes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Callable

from ..arch import (TileDevice, auto_infer_current_arch, get_arch, is_ampere_arch,
                    is_cdna_arch, is_volta_arch)
from ..roller.hint import Hint


@dataclass(frozen=True)
class TensorSpec:
    """A tensor of a Computation."""

    name: str
    shape: tuple
    dtype: str


@dataclass(frozen=True)
class Computation:
    """An operation as data: its `inputs` and `outputs` (TensorSpecs, in
    TileLang's parameter order) and `reference(*inputs)`, its result(s)
    from NumPy arrays (the result in `outputs`' dtype where NumPy has it,
    else float32)."""

    name: str
    inputs: tuple
    outputs: tuple
    reference: Callable = field(repr=False, compare=False)

    @property
    def params(self) -> tuple:
        return self.inputs + self.outputs

    def __call__(self, *arrays):
        return self.reference(*arrays)


def as_numpy_dtype(dtype):
    """NumPy's type for `dtype`, or float32 where NumPy has none (bf16,
    fp8)."""
    import numpy as np
    try:
        return np.dtype(str(dtype))
    except TypeError:
        return np.dtype(np.float32)


def accumulate_dtype(dtype):
    """The NumPy type a reference accumulates `dtype` in."""
    import numpy as np
    kind = as_numpy_dtype(dtype).kind
    return np.dtype(np.int64) if kind in "iub" else np.dtype(np.float64)


@dataclass
class BaseTemplate(ABC):
    """The template interface (see the module's docstring)."""

    _arch: TileDevice = field(default=None, init=False, repr=False)
    _func: Computation = field(default=None, init=False, repr=False)
    _output_nodes: list = field(default=None, init=False, repr=False)

    @abstractmethod
    def get_hardware_aware_configs(self, arch: TileDevice = None, topk: int = 10) -> list[Hint]:
        """Up to `topk` Hints for `arch`, best first."""

    @abstractmethod
    def initialize_function(self) -> None:
        """Checks the parameters and sets the Computation."""

    def __post_init__(self):
        self.initialize_function()

    def with_arch(self, arch) -> "BaseTemplate":
        """Recommends for `arch`: a TileDevice or a target ("cuda",
        "sm_80", "hip", "cpu"); None: the current device, found on first
        use."""
        self._arch = arch if arch is None or isinstance(arch, TileDevice) else get_arch(arch)
        return self

    def has_arch(self) -> bool:
        return self._arch is not None

    @property
    def arch(self) -> TileDevice:
        if self._arch is None:
            self._arch = auto_infer_current_arch()
        return self._arch

    def is_volta_arch(self) -> bool:
        return is_volta_arch(self.arch)

    def is_ampere_arch(self) -> bool:
        return is_ampere_arch(self.arch)

    def is_cdna_arch(self) -> bool:
        return is_cdna_arch(self.arch)

    def is_rdna_arch(self) -> bool:
        return False

    def equivalent_function(self) -> Computation:
        return self._func

    def set_function(self, func: Computation) -> "BaseTemplate":
        self._func = func
        return self

    def set_output_nodes(self, output_nodes) -> "BaseTemplate":
        self._output_nodes = output_nodes
        return self

    @property
    def output_nodes(self):
        return self._output_nodes

    def recommend_hints(self, topk: int = 10) -> list[Hint]:
        """Up to `topk` Hints for the template's arch, best first (an empty
        list when no configuration fits)."""
        return self.get_hardware_aware_configs(self.arch, topk)

    def params_as_dict(self) -> dict:
        return {}

    @property
    def class_attributes(self) -> dict:
        return self.params_as_dict()

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.class_attributes.items())
        return f"{type(self).__name__}({fields})"


__all__ = ["BaseTemplate", "Computation", "TensorSpec"]
