"""Builds the optional C counting kernel (metrics/_counting.c); everything else is in
pyproject.toml. Without a C compiler the build of the kernel is skipped with a warning and
metrics.ranking.allvsall counts with NumPy instead, giving the same results more slowly."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("metrics.ranking._counting", ["metrics/ranking/_counting.c"], optional=True)])
