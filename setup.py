"""Builds the optional C parts; everything else is in pyproject.toml. Without a C compiler their
build is skipped with a warning and the same results come more slowly: the counting kernel
(metrics/ranking/_counting.c), without which metrics.ranking.allvsall counts with NumPy, and the
TREC line reader (metrics/loaders/_trec_lines.c), without which streamed runs are read with
polars."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("metrics.ranking._counting", ["metrics/ranking/_counting.c"], optional=True),
    Extension("metrics.loaders._trec_lines", ["metrics/loaders/_trec_lines.c"], optional=True),
])
