"""Writing files safely: atomic replacement, operating-system errors that name the file, the cache folder."""
