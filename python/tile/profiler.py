"""tile.profiler (filled in below)."""
