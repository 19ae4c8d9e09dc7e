"""What augkit shows on a terminal: progress bars, tables fitted to its width, docstrings as plain text."""
