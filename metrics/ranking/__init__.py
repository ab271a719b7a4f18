"""Ranking and ties: from runs, matrices and embeddings to judged rankings."""
