"""Scoring augmented tables against their sources (``augkit evaluate``)."""
