"""What a run did, in numbers: rows read, augmentations written, and why some rows got none."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


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

    @property
    def rows_written(self) -> int:
        return self.original_rows_written + self.augmentations

    def summary(self) -> str:
        """One line, e.g. ``read 770 rows; wrote 3850 rows (770 original + 3080 augmented);
        2 inputs yielded nothing: 2 empty or whitespace text``."""
        line = (
            f"read {self.rows_read} rows; wrote {self.rows_written} rows "
            f"({self.original_rows_written} original + {self.augmentations} augmented)"
        )
        empty = sum(self.without_augmentation.values())
        if empty:
            reasons = ", ".join(f"{count} {reason}" for reason, count in self.without_augmentation.most_common())
            line += f"; {empty} input{'s' if empty != 1 else ''} yielded nothing: {reasons}"
        else:
            line += "; every input yielded at least one augmentation"
        if self.seed is not None:
            line += f"; seed {self.seed}"
        return line

    def as_dict(self) -> dict:
        return {
            "rows_read": self.rows_read,
            "rows_augmented": self.rows_augmented,
            "augmentations": self.augmentations,
            "original_rows_written": self.original_rows_written,
            "rows_written": self.rows_written,
            "without_augmentation": dict(self.without_augmentation),
            "seed": self.seed,
        }
