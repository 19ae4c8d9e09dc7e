"""How a run runs, in one object: :class:`RunOptions`, passed from the entry points
(:func:`augkit.augment`, ``augkit augment``) down to the engine, the adapters and the
workers, instead of loose keyword dictionaries."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from augkit.augment_options import DEFAULT_BATCH_SIZE, DEFAULT_OPTIONS, AugmentOptions
from augkit.protection.reading import phrase_list
from augkit.seeding import resolve_seed
from augkit.steps.params import check_bool, check_int, check_seconds

__all__ = ["DEFAULT_BATCH_SIZE", "RunOptions"]


@dataclass(frozen=True)
class RunOptions:
    """The settings of one run that are not the pipeline itself.

    ``n`` augmentations per row, the base ``seed`` (None: one is drawn when the options are
    checked, and the report gives it), ``batch_size`` texts per pipeline call,
    ``workers`` processes, ``progress`` (None: a bar when standard error is a terminal),
    ``coerce`` non-string texts to strings, ``strict`` (stop on a failing row), a
    ``row_timeout`` in seconds, ``trace`` (record every candidate's fate), and what every row
    protects: the caller's ``protect`` phrases and, with ``protect_codes``, its short
    all-capital and single-letter tokens (:mod:`augkit.protection`). None of them changes
    which candidates a row gets, except ``n``, ``seed`` and the protection.

    Each field is an option of :func:`augkit.augment` of the same name, with its default
    (:mod:`augkit.augment_options`); :meth:`of` takes them from a call's options.
    """

    n: int = DEFAULT_OPTIONS.n
    seed: int | None = DEFAULT_OPTIONS.seed
    batch_size: int = DEFAULT_OPTIONS.batch_size
    workers: int = DEFAULT_OPTIONS.workers
    progress: bool | None = DEFAULT_OPTIONS.progress
    coerce: bool = DEFAULT_OPTIONS.coerce
    strict: bool = DEFAULT_OPTIONS.strict
    row_timeout: float | None = DEFAULT_OPTIONS.row_timeout
    trace: bool = DEFAULT_OPTIONS.trace
    protect: tuple[str, ...] = phrase_list(DEFAULT_OPTIONS.protect)  # the checked form
    protect_codes: bool = DEFAULT_OPTIONS.protect_codes

    @classmethod
    def of(cls, asked: AugmentOptions) -> RunOptions:
        """The engine's share of a call's options (unchecked, as given)."""
        return cls(**{option.name: getattr(asked, option.name) for option in dataclasses.fields(cls)})

    def checked(self) -> RunOptions:
        """These options with every value validated (a clear error naming the bad one) and
        the seed resolved (:func:`augkit.seeding.resolve_seed`): every entry point's one
        place for both."""
        return dataclasses.replace(
            self,
            n=check_int("n", self.n, 0),
            seed=resolve_seed(self.seed),
            batch_size=check_int("batch_size", self.batch_size, 1),
            workers=check_int("workers", self.workers, 1),
            coerce=bool(self.coerce),
            strict=bool(self.strict),
            row_timeout=check_seconds("row_timeout", self.row_timeout),
            trace=bool(self.trace),
            protect=phrase_list(self.protect),
            protect_codes=check_bool("protect_codes", self.protect_codes),
        )

    def replace(self, **changes) -> RunOptions:
        return dataclasses.replace(self, **changes)

