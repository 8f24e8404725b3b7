"""tile.carver.matmul_analysis: of TileLang's ``tilelang.carver.matmul_analysis``
(analyses of TVM IR, which tile does not have), the SM-version parser, the
same function as ``tile.carver.arch.cuda.check_sm_version``."""

from .arch.cuda import check_sm_version  # noqa: F401

__all__ = ["check_sm_version"]
