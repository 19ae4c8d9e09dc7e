"""The ``augkit`` command line."""
