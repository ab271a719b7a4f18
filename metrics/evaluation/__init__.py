"""Evaluation: measures over queries, protocols, curves, statistics, provenance."""
