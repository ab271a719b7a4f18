"""``python -m metrics``: see :mod:`metrics.cli`."""

from .cli import main

raise SystemExit(main())
