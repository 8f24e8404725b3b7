"""Errors of the tile frontend. Each names the Python file and line it is
about; none prints IR."""

from __future__ import annotations

import linecache


class TileError(Exception):
    """A mistake in a tile program found while tracing it (wrong argument,
    unsupported construct...). The message starts with ``file:line:``."""

    def __init__(self, message: str, where=None):
        self.where = where
        self.bare_message = message
        super().__init__(_format(where, message) if where else message)


class TileCompileError(TileError):
    """The compiler rejected a traced program. ``diagnostics`` holds each
    message with its Python file, line and column."""

    def __init__(self, diagnostics, what: str = "compilation failed"):
        self.diagnostics = list(diagnostics)
        lines = []
        for d in self.diagnostics:
            lines.append(format_diagnostic(d))
        text = "\n".join(lines) if lines else what
        Exception.__init__(self, text)
        self.where = None
        self.bare_message = text


def _format(where, message):
    file, line = where[0], where[1]
    text = f"{file}:{line}: error: {message}"
    source = linecache.getline(file, line).rstrip()
    if source:
        text += "\n    " + source.strip()
    return text


def format_diagnostic(d) -> str:
    if d.file:
        head = f"{d.file}:{d.line}:{d.column}: {d.severity}: {d.message}"
        source = linecache.getline(d.file, d.line).rstrip("\n")
        if source.strip():
            indent = len(source) - len(source.lstrip())
            head += "\n    " + source.strip()
            if d.column > indent:
                head += "\n    " + " " * (d.column - 1 - indent) + "^"
    else:
        head = f"{d.severity}: {d.message}"
    for note in d.notes:
        head += "\n" + format_diagnostic(note)
    return head
