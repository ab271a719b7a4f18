"""``python -m metrics``: see :mod:`metrics.cli`."""

from metrics.cli import main

raise SystemExit(main())
