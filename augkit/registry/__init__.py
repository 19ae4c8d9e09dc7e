"""Plugins: the hook specifications, entry-point discovery, and the registry of methods, filters and commands."""
