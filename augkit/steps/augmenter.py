"""The :class:`Augmenter` interface every augmentation method implements."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from augkit.steps.configurable import Configurable
from augkit.text import distinct_by_spacing, spacing_key

if TYPE_CHECKING:
    from augkit.steps.context import BatchContext, DatasetContext
    from augkit.steps.feedback import RowFeedback
    from augkit.steps.filter import Filter


class Augmenter(Configurable):
    """Base class of augmentation methods.

    A subclass sets ``name``, takes its whole configuration as constructor keyword
    arguments (stored on ``self`` under the same names) and implements :meth:`augment`.
    Model-backed augmenters override :meth:`augment_batch` to process many texts at once.

    Example::

        class Shout(augkit.Augmenter):
            \"\"\"Upper-cases the text and adds exclamation marks.\"\"\"
            name = "shout"
            def __init__(self, marks: int = 1):
                self.marks = marks
            def augment(self, text, n, rng):
                return [text.upper() + "!" * (self.marks + i) for i in range(n)]
    """

    #: The method name users pass as ``method=``; unique across installed plugins.
    name: ClassVar[str] = ""

    #: Scores this augmenter attaches to its candidates (each becomes an ``augkit_<name>``
    #: column). An augmenter that declares scores returns :class:`augkit.Candidate`
    #: objects, ``Candidate(text, method="", scores={"dual": -0.8})``, instead of strings.
    scores: ClassVar[tuple[str, ...]] = ()

    #: True when the augmenter runs a model (a translation or paraphrase model, an encoder):
    #: its batches take long and vary with the hardware, so ``augkit augment`` sets no
    #: per-row time limit by default when a pipeline holds such a step.
    uses_model: ClassVar[bool] = False

    #: Logical names of the other columns of a row this augmenter reads (``("premise",)``,
    #: ``("previous", "next")``). Users map them to their data's columns
    #: (``context_columns={"premise": "sentence_A"}``, ``--context-column premise=sentence_A``);
    #: :meth:`augment_batch` then takes a ``context`` keyword and finds each row's values in
    #: ``context.columns[name][i]`` (and its label in ``context.labels[i]``).
    context_columns: ClassVar[tuple[str, ...]] = ()

    #: Logical names of other columns this augmenter reads when the caller maps them and does
    #: without otherwise (ParaMac's ``("before", "after")``: the text's surrounding sentences).
    #: ``context.columns`` holds only those that are mapped.
    optional_context_columns: ClassVar[tuple[str, ...]] = ()

    #: Logical names of the other columns this augmenter may rewrite (pair augmentation:
    #: ``("premise",)``), through :attr:`augkit.Candidate.fields`; users map them like
    #: :attr:`context_columns`, and ``context`` holds their original values too.
    rewrites_columns: ClassVar[tuple[str, ...]] = ()

    #: What the text is in the rows this augmenter reads, when it is more than a text (ERAP's
    #: ``"hypothesis"`` of a premise-hypothesis pair): ``augkit.augment(..., hypothesis_column=...)``
    #: then names the text column. Empty: just the text.
    text_name: ClassVar[str] = ""

    #: Logical names of other columns this augmenter reads and may rewrite when the caller
    #: maps them, and does without otherwise (ERAP's ``("premise",)``: with a premise column
    #: it augments NLI pairs, without one it paraphrases the text alone).
    optional_rewrites_columns: ClassVar[tuple[str, ...]] = ()

    #: True when the augmenter may set the label of the rows it makes
    #: (:attr:`augkit.Candidate.label`, e.g. a label projection): the caller must then name
    #: the label column, and the output says which labels changed (``augkit_label_from``).
    sets_label: ClassVar[bool] = False

    #: Names of the usage this augmenter reports per row (``("requests", "prompt_tokens")``):
    #: it returns a row as :class:`augkit.GeneratedRow` ``(candidates, usage={...})``, and the
    #: run's report sums each name over the rows (``usage:<name>``) and shows it in its
    #: summary, whatever the batching or backend. A ``GeneratedRow`` may also give the
    #: ``reason`` a row got no candidates, which the summary shows.
    usage: ClassVar[tuple[str, ...]] = ()

    #: True when :meth:`prepare` must see every original of the run to generate correctly
    #: (a label-conditioned generator collecting each label's examples): streamed runs then
    #: read all the texts first, and a streamed ``IterableDataset`` is refused.
    needs_all_texts: ClassVar[bool] = False

    #: True when the augmenter's randomness is a library's global generators, which it seeds
    #: itself per row (the nlpaug bridge): :meth:`augment_batch` then receives each row's seed,
    #: a non-negative 128-bit int, in place of its generator (``random.Random(seed)`` is that
    #: generator, so the two carry the same randomness). It spares making a generator only
    #: to draw a seed from it: a Mersenne Twister's seeding costs 3.6 us here, a few percent
    #: of a fast method's row.
    row_seeds: ClassVar[bool] = False

    #: True when the augmenter itself never changes a protected span of its rows (it reads
    #: ``context.protected`` in :meth:`augment_batch`: EDA never edits, moves or splits one).
    #: Every pipeline's ``protected`` step still checks its candidates; ``augkit info`` says
    #: which methods keep spans by themselves and which have candidates dropped for losing one.
    protects: ClassVar[bool] = False

    def follow_up(self) -> Sequence[Filter]:
        """Filters, scorers and rankers every candidate of this method goes through when it is
        a pipeline's generator, before the caller's own filters: a method that ranks its
        candidates by several scores (ParaMac) declares its scorers and ranker here, so that
        ``method="paramac"`` ranks, and the trace and counts name each step. Such a method
        must be its pipeline's only generator. Default: none."""
        return ()

    def candidates_for(self, n: int) -> int:
        """How many candidates to ask this method for when a pipeline wants ``n`` outputs of it
        and it ranks them with its own :meth:`follow_up` steps (which then keep the best ``n``):
        a method that generates a fixed pool to rank says so here. Default: ``n``."""
        return n

    def feedback_rounds(self) -> int:
        """How many extra rounds a pipeline may ask of this method, each for the rows its
        filters left with fewer than ``n`` candidates after rejecting some in the row's last
        round, through :meth:`augment_again` (a model told what was rejected and why can do
        better). Only a pipeline's lone generator may ask for rounds. Default 0: none."""
        return 0

    def augment_again(self, texts: list[str], n: int, rngs: list[random.Random], context: BatchContext,
                      feedback: list[RowFeedback]) -> list[list[str]]:
        """Another round for rows whose candidates the pipeline's filters rejected (see
        :meth:`feedback_rounds`): ``feedback[i]`` says which candidates of ``texts[i]`` were
        rejected so far, by which step and why, and which were kept (not to be repeated).
        Returns up to ``n`` new candidates per text, as :meth:`augment_batch` does (a
        :class:`augkit.GeneratedRow` to report usage); ``rngs`` are the rows' generators for
        this round, drawn from the run's seed, the row's text and the round, so a row's round is
        the same whatever batch it runs in. The pipeline runs them through its filters and keeps
        them after the row's earlier ones."""
        raise NotImplementedError(f"{type(self).__name__} asks for feedback rounds but does not implement augment_again()")

    def prepare(self, dataset: DatasetContext) -> None:
        """Called once per run, before any batch, with all the run's originals, their labels
        (when the caller named a label column) and their context columns: the place to
        collect each label's examples. Runs in the calling process, so worker processes
        inherit what it computes. Set :attr:`needs_all_texts` when the output depends on it."""

    def augment(self, text: str, n: int, rng: random.Random) -> list[str]:
        """Return up to ``n`` augmentations of ``text`` (never None; fewer is allowed):
        strings, or :class:`augkit.Candidate` objects to attach the declared ``scores``.

        All randomness must come from ``rng``, which augkit derives from the run's seed and
        the text, so that outputs are reproducible whatever the batching.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement augment()")

    def augment_batch(
        self, texts: list[str], n: int, rngs: list[random.Random]
    ) -> list[list[str]]:
        """Augment many texts; ``rngs[i]`` belongs to ``texts[i]`` (its seed, an int, when the
        class sets :attr:`row_seeds`). Defaults to one :meth:`augment` call per text.

        An augmenter that reads other columns or labels adds a keyword parameter ``context``
        (``def augment_batch(self, texts, n, rngs, context)``): it then receives an
        :class:`augkit.BatchContext` whose ``columns`` hold, per logical name it declares in
        :attr:`context_columns` and :attr:`rewrites_columns`, one value per text, and whose
        ``labels`` hold the rows' labels (None when the caller named no label column).
        Augmenters without that parameter are called as before."""
        return [self.augment(text, n, rng) for text, rng in zip(texts, rngs, strict=True)]


def first_distinct(source: str, candidates: Iterable[str], n: int,
                   key: Callable[[str], Hashable] | None = None) -> list[str]:
    """The first ``n`` candidates that differ from ``source`` and from each other, compared
    by ``key`` (default: the exact text; :func:`augkit.text.spacing_key` counts texts that
    differ only in spacing as the same, for a library that re-spaces what it returns).

    ``candidates`` may be a lazy generator: it is consumed only until ``n`` are found, so an
    augmenter can offer more attempts than it will usually need. With ``key=spacing_key``
    the comparison is :func:`augkit.text.distinct_by_spacing`'s, which makes no key objects.
    """
    if key is spacing_key:
        return distinct_by_spacing(source, candidates, n)
    compared = key or (lambda text: text)
    seen = {compared(source)}
    found: list[str] = []
    if n <= 0:
        return found
    for candidate in candidates:
        candidate_key = compared(candidate)
        if candidate_key not in seen:
            seen.add(candidate_key)
            found.append(candidate)
            if len(found) == n:
                break
    return found
