"""What a run did, in numbers: rows read, candidates generated and dropped by each pipeline
step, augmentations written, and why some rows got none.

A row that got none because a step *failed* on it (raised, returned something outside its
contract, ran past its time limit, or could not produce: :attr:`augkit.GeneratedRow.failed`)
has a reason that starts with :data:`FAILED` (``augmentation failed (...)``); the other
reasons (nothing generated, every candidate removed by a filter, a blank text) are not
failures. :attr:`AugmentationReport.nothing_worked` applies the rule "a run in which every row
asked failed did not work", which :func:`check_something_worked` enforces."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from augkit.errors import NothingAugmentedError
from augkit.steps.generated_row import USAGE_PREFIX
from augkit.steps.inputs import BLANK_TEXT, MISSING_TEXT, NO_LABEL

#: Keys of :attr:`AugmentationReport.candidates` that are not filters (see
#: :attr:`augkit.Pipeline.count_names`).
_GENERATED, _BEYOND_N = "generated", "beyond n"
#: How the reason of a row a step failed on begins: ``augmentation failed (<what went wrong>)``.
FAILED = "augmentation failed"
#: Reasons of rows that were never asked for an augmentation (the text is missing or blank,
#: or the label is missing).
SKIPPED = frozenset({MISSING_TEXT, BLANK_TEXT, NO_LABEL})
#: Rows the summary names for each reason a user acts on (:func:`names_rows`); the trace
#: lists every row.
ROWS_NAMED = 3
#: Characters of a named row's text the summary shows: enough to find the row by eye.
TEXT_SHOWN = 30


def failure_reason(detail: str) -> str:
    """The reason of a row a step failed on: ``augmentation failed (<detail>)``."""
    return f"{FAILED} ({detail})"


def is_failure(reason: str | None) -> bool:
    """Whether ``reason`` (why a row got no augmentation) says a step failed on it."""
    return isinstance(reason, str) and reason.startswith(f"{FAILED} (") and reason.endswith(")")


def failure_detail(reason: str) -> str:
    """What :func:`failure_reason` wrapped: ``augmentation failed (x)`` gives ``x``."""
    return reason[len(FAILED) + 2 : -1]


def names_rows(reason: str) -> bool:
    """Whether the summary names the first rows without augmentation for ``reason``: rows
    whose augmentation failed or whose label is missing, which the user may need to fix. Rows
    a filter emptied are counted only: they are the filters doing their job."""
    return is_failure(reason) or reason == NO_LABEL


def shown_text(value: Any) -> str:
    """The start of a row's text as the summary names it."""
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= TEXT_SHOWN else text[:TEXT_SHOWN].rstrip() + "..."


@dataclass
class AugmentationReport:
    """Counts of one :func:`augkit.augment` call (or one ``augkit augment`` command)."""

    rows_read: int = 0
    rows_augmented: int = 0
    augmentations: int = 0
    original_rows_written: int = 0
    without_augmentation: Counter = field(default_factory=Counter)
    #: The run's base seed: the caller's, or the one drawn when none was given (passing it
    #: as ``seed`` reproduces the run).
    seed: int | None = None
    #: Augmentations asked for per row.
    n: int | None = None
    #: Candidates ``generated``, then dropped by each filter step (by its name, in pipeline
    #: order), then ``beyond n`` (kept by every filter but over ``n``); summed over rows.
    candidates: dict[str, int] = field(default_factory=dict)
    #: Every candidate generated and its fate, when the run kept a trace (``trace=True``):
    #: :class:`augkit.reporting.trace.TraceEntry` objects whose ``source`` is the source row's index
    #: label (a DataFrame), position (a list, a Dataset) or input row number (a file).
    trace: list | None = field(default=None, repr=False, compare=False)
    #: For each reason of :attr:`without_augmentation` that :func:`names_rows`, the first
    #: rows (at most :data:`ROWS_NAMED`, in input order) that had it: ``(row, start of its
    #: text)``, the row named as ``augkit_source`` names it.
    examples: dict[str, list[tuple[Any, str]]] = field(default_factory=dict)

    @property
    def rows_written(self) -> int:
        return self.original_rows_written + self.augmentations

    def summary(self) -> str:
        """One line that says what happened, e.g. ``read 770 rows; generated 3080 candidates,
        dropped 2 by dedup, 301 by semantic; wrote 3547 rows (770 original + 2777 augmented);
        12 rows got no augmentation: 12 all candidates removed by filter 'semantic'; seed 0``."""
        parts = [f"read {self.rows_read} rows" + ("" if self.rows_read else " (the input has no rows)")]
        if self.n == 0:
            parts.append("n=0: no augmentation asked for")
        elif self.rows_read and self.candidates:
            parts.append(self._candidates_summary())
        parts.append(f"wrote {self.rows_written} rows ({self.original_rows_written} original + {self.augmentations} augmented)")
        none = sum(self.without_augmentation.values())
        if none:
            reasons = ", ".join(f"{count} {reason}{self._rows_named(reason, count)}"
                                for reason, count in self.without_augmentation.most_common())
            parts.append(f"{none} row{'s' if none != 1 else ''} got no augmentation: {reasons}")
        elif self.rows_read and self.n != 0:
            parts.append("every row got at least one augmentation")
        usage = self.usage
        if usage:
            parts.append(usage_summary(usage))
        if self.seed is not None:
            parts.append(f"seed {self.seed}")
        return "; ".join(parts)

    def _rows_named(self, reason: str, count: int) -> str:
        """``: row 4 'book a table...', row 9 '...' and 5 more`` for a reason with examples."""
        named = self.examples.get(reason, [])[:ROWS_NAMED]
        if not named:
            return ""
        more = count - len(named)
        return ": " + ", ".join(f"row {row} {text!r}" for row, text in named) + (
            f" and {more} more (the trace lists every row)" if more > 0 else "")

    def note_examples(self, reasons: Iterable[str | None], texts: Iterable[Any], rows: Iterable[Any]) -> None:
        """Keep the first rows of each reason that :func:`names_rows`, from ``reasons``,
        ``texts`` and ``rows`` (what ``augkit_source`` calls each row) aligned, in input order."""
        for reason, text, row in zip(reasons, texts, rows):
            if reason and names_rows(reason):
                named = self.examples.setdefault(reason, [])
                if len(named) < ROWS_NAMED:
                    named.append((_plain(row), shown_text(text)))

    def rename_rows(self, name: Callable[[Any], Any]) -> None:
        """Name the rows of :attr:`examples` by ``name(row)`` (an adapter turning positions
        into index labels)."""
        self.examples = {reason: [(_plain(name(row)), text) for row, text in named]
                         for reason, named in self.examples.items()}

    @property
    def failures(self) -> Counter:
        """The reasons of the rows that got no augmentation because a step failed on them,
        counted (a part of :attr:`without_augmentation`)."""
        return Counter({reason: count for reason, count in self.without_augmentation.items() if is_failure(reason)})

    @property
    def rows_failed(self) -> int:
        """Rows that got no augmentation because a step failed on them."""
        return sum(self.failures.values())

    @property
    def rows_asked(self) -> int:
        """Rows the pipeline was asked to augment: those read, less those with a missing or
        blank text (none when ``n`` is 0)."""
        if self.n == 0:
            return 0
        return self.rows_read - sum(self.without_augmentation.get(reason, 0) for reason in SKIPPED)

    @property
    def nothing_worked(self) -> bool:
        """True when rows were asked for augmentations and a step failed on every one of them."""
        return self.rows_asked > 0 and self.rows_failed == self.rows_asked

    @property
    def usage(self) -> dict[str, int]:
        """What the augmenters reported the run cost (:attr:`augkit.Augmenter.usage`), by name:
        ``{"requests": 40, "cached": 12, "prompt_tokens": 9120, ...}``; empty for methods
        that report none."""
        return {name.removeprefix(USAGE_PREFIX): count for name, count in self.candidates.items()
                if name.startswith(USAGE_PREFIX)}

    def _candidates_summary(self) -> str:
        text = f"generated {self.candidates.get(_GENERATED, 0)} candidates"
        dropped = [f"{count} by {name}" for name, count in self.candidates.items()
                   if name not in (_GENERATED, _BEYOND_N) and not name.startswith(USAGE_PREFIX)]
        beyond = self.candidates.get(_BEYOND_N, 0)
        if beyond:
            dropped.append(f"{beyond} beyond n={self.n}")
        return text + (f", dropped {', '.join(dropped)}" if dropped else "")

    def add(self, other: AugmentationReport) -> None:
        """Add the counts of ``other`` (a later part of the same run) to these."""
        self.rows_read += other.rows_read
        self.rows_augmented += other.rows_augmented
        self.augmentations += other.augmentations
        self.original_rows_written += other.original_rows_written
        self.without_augmentation.update(other.without_augmentation)
        for reason, named in other.examples.items():
            mine = self.examples.setdefault(reason, [])
            mine.extend(named[: max(0, ROWS_NAMED - len(mine))])
        self.candidates = add_counts(self.candidates, other.candidates)
        if self.n is None:
            self.n = other.n
        if self.seed is None:  # every part of a run ran with its seed
            self.seed = other.seed
        if other.trace is not None:
            self.trace = [*(self.trace or []), *other.trace]

    def as_dict(self) -> dict:
        return {
            "rows_read": self.rows_read,
            "rows_augmented": self.rows_augmented,
            "augmentations": self.augmentations,
            "original_rows_written": self.original_rows_written,
            "rows_written": self.rows_written,
            "without_augmentation": dict(self.without_augmentation),
            "seed": self.seed,
            "n": self.n,
            "candidates": dict(self.candidates),
            "examples": {reason: [list(example) for example in named] for reason, named in self.examples.items()},
        }

    @classmethod
    def from_dict(cls, record: Mapping) -> AugmentationReport:
        """The report :meth:`as_dict` wrote."""
        return cls(
            rows_read=record["rows_read"], rows_augmented=record["rows_augmented"],
            augmentations=record["augmentations"], original_rows_written=record["original_rows_written"],
            without_augmentation=Counter(record["without_augmentation"]), seed=record.get("seed"),
            n=record.get("n"), candidates=dict(record.get("candidates", {})),
            examples={reason: [tuple(example) for example in named] for reason, named in record.get("examples", {}).items()},
        )


def check_something_worked(report: AugmentationReport) -> None:
    """Raise :class:`~augkit.errors.NothingAugmentedError` when a step failed on every row the
    run asked to augment (:attr:`AugmentationReport.nothing_worked`), with the failures counted:
    such a run did not work, with or without ``strict``."""
    if not report.nothing_worked:
        return
    asked = report.rows_asked
    rows = "the only row" if asked == 1 else f"all {asked} rows"
    reasons = ", ".join(f"{count} {failure_detail(reason)}" for reason, count in report.failures.most_common())
    raise NothingAugmentedError(f"nothing was augmented: a step failed on {rows} asked: {reasons}", report=report)


def _plain(row: Any) -> Any:
    """A NumPy scalar row label as the Python value it holds (job records are JSON)."""
    return row.item() if type(row).__module__ == "numpy" and hasattr(row, "item") else row


def add_counts(first: Mapping[str, int], second: Mapping[str, int]) -> dict[str, int]:
    """Two step-count mappings summed key by key, keeping the pipeline's order."""
    return {name: first.get(name, 0) + second.get(name, 0) for name in dict.fromkeys([*first, *second])}


def sum_reports(reports: Iterable[AugmentationReport]) -> AugmentationReport:
    """One report for the parts of a run (chunks of a file, batches of a dataset)."""
    total = AugmentationReport()
    for report in reports:
        total.add(report)
    return total


#: How usage names read in the summary; others print as ``<count> <name with spaces>``.
_USAGE_WORDS = {"prompt_tokens": "prompt tokens", "completion_tokens": "completion tokens", "cached": "from the cache"}
#: A usage count in billionths of a dollar, shown as dollars.
COST_NANODOLLARS = "cost_nanodollars"


def usage_summary(usage: Mapping[str, int]) -> str:
    """The summary's usage part, e.g. ``usage: 40 requests, 12 from the cache, 9120 prompt
    tokens, 2311 completion tokens, cost $0.0028``."""
    parts = []
    for name, count in usage.items():
        if name == COST_NANODOLLARS:
            if count:  # no prices given (or everything from a cache): no cost to show
                parts.append(f"cost ${count / 1e9:.6f}")
        else:
            parts.append(f"{count} {_USAGE_WORDS.get(name, name.replace('_', ' '))}")
    return "usage: " + ", ".join(parts)
