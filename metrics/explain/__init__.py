"""What the dashboard needs to explain a dataset: summaries, conventions, answer sets, samples."""
