"""The data model: runs, ground truth, what a grade means (relevance), the judged ranking every
measure reads."""
