"""TileLang's ``tilelang.engine``: its code-generation callbacks
(``tile.engine.callback``)."""
