"""The data model: runs, ground truth, the judged ranking every measure reads."""
