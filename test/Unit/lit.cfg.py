# -*- Python -*-
# lit configuration of the tile gtest unit tests.

import os

import lit.formats

config.name = "TILE-Unit"
config.suffixes = []
config.test_exec_root = config.unittests_dir
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
