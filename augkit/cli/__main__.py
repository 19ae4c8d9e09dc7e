"""``python -m augkit.cli``: the ``augkit`` command."""

from augkit.cli.main import console_main

if __name__ == "__main__":
    console_main()
