"""Oracles shared by several test files: computed by hand or from scipy, never by the code under
test."""

import numpy as np


def holm_by_hand(p):
    """Holm's step-down adjusted p-values: the i-th smallest times (m − i + 1), made monotone."""
    order = np.argsort(p)
    adjusted, running = np.empty(len(p)), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted
