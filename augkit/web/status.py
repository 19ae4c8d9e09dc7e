"""The page's status line for a message of several lines.

A message may run over several lines: the missing models of a run, one a line, and the
commands that fetch them. The status line is Markdown, which would join those lines into one
paragraph and read the indented ones as list items; the lines after the first are shown
as they are written instead, in a preformatted block that keeps the commands whole to copy.
"""

from __future__ import annotations


def status_line(label: str, message: str) -> str:
    """``**label:** message`` for the page's Markdown status line, the message's lines after
    its first in a preformatted block.

    >>> print(status_line("Error", "2 models are missing:\\n  - 'gpt2'"))
    **Error:** 2 models are missing:
    <BLANKLINE>
    ```
      - 'gpt2'
    ```
    """
    first, _, rest = message.partition("\n")
    if not rest.strip():
        return f"**{label}:** {first}"
    return f"**{label}:** {first}\n\n```\n{rest.rstrip()}\n```"
