"""The ``augkit`` command's exit codes (the command's docstring says when each is used)."""


EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

#: 128 + SIGTERM, as a shell reports a process ended by it.
EXIT_TERMINATED = 143
