#!/usr/bin/env python3
"""Checks that each code block of a doc marked `<!-- file: PATH -->` is
PATH's content, so that the examples a page shows are those the tests
build.

    check-doc-examples.py SOURCE_ROOT DOC.md
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
doc = (root / sys.argv[2]).read_text()
blocks = re.findall(r"<!-- file: (\S+) -->\n```[^\n]*\n(.*?)```\n", doc,
                    re.DOTALL)
failures = 0
for path, text in blocks:
    if (root / path).read_text() != text:
        print(f"{sys.argv[2]}: the example of {path} differs from the file")
        failures += 1
print(f"{len(blocks)} examples checked, {failures} differ")
sys.exit(1 if failures or not blocks else 0)
