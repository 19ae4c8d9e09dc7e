"""The augmentation methods a few-shot run compares, written as one string each.

``METHOD[@option=value,...]`` where METHOD is

- ``none``: the K-shot sample alone;
- an augkit method or pipeline string: ``eda``, ``aeda``, ``eda+aeda``,
  ``eda|semantic(min=0.85)|label_integrity``, ... run with ``augkit.augment(frame, pipeline,
  n=N, seed=S, text_column="text", label_column="label")``;
- ``nlpaug:synonym`` (``SynonymAug(aug_src="wordnet")``), ``nlpaug:swap``
  (``RandomWordAug(action="swap")``) or ``nlpaug:delete``, at ``aug_p=0.1`` like EDA's
  defaults, the peer.

and the options are

- ``weight``: the training weight of each augmented row (originals weigh 1), default 1;
- ``per_source``: 1 to give each source's augmentations together the weight of ``n`` full
  rows (``weight * n``), shared equally among the ones that survived the filters, so a source
  whose candidates were filtered away does not lose influence (and, with it, its class);
- ``n``: augmentations per example, overriding the run's ``--n``;
- ``oversample``: for augkit pipelines, ask for ``n * oversample`` candidates and let the
  filters keep the best ``n`` (``augkit.Pipeline.from_string(spec, oversample=...)``);
- ``two_stage``: 1 to train on everything first and then on the originals alone
  ("augmented first, originals last"; classifiers whose ``fit`` takes ``originals_last``:
  ``finetune``);
- ``into``: ``rows`` (the default: augmented rows are extra labelled training rows) or
  ``pairs``: each augmented row only adds a positive pair (its original, it) to a
  contrastive classifier's pair set (``setfit``), whose head then trains on the originals
  only; a classifier that does not train on pairs refuses it.

Example: ``"aeda|semantic(min=0.9)@weight=0.3,n=8"``, ``"eda@into=pairs"``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

NONE = "none"
NLPAUG_PREFIX = "nlpaug:"
NLPAUG_METHODS = ("synonym", "swap", "delete")
OPTIONS = {"weight": float, "n": int, "oversample": float, "per_source": int, "into": str, "two_stage": int}
INTO = ("rows", "pairs")


class MethodSpecError(ValueError):
    """A method string that does not parse or names an unknown method or option."""


@dataclass(frozen=True)
class TrainingSet:
    """Texts, labels and per-row weights to fit a classifier on; ``augmented`` counts the
    rows that augmentation added, ``paraphrase_of`` gives each row's original (its row
    number here; -1 for the originals) and ``into`` says how a classifier should take the
    augmented rows (``rows`` or ``pairs``, see the module docstring)."""

    texts: list[str]
    labels: list[str]
    weights: np.ndarray
    augmented: int
    paraphrase_of: np.ndarray | None = None
    into: str = "rows"
    two_stage: bool = False


@dataclass
class Method:
    """One compared method: a generator (``none``, an augkit pipeline or an nlpaug peer) and
    its options. Build it with :func:`parse_method`."""

    label: str
    generator: str
    weight: float = 1.0
    n: int | None = None
    oversample: float = 1.0
    per_source: int = 0
    into: str = "rows"
    two_stage: int = 0
    _pipeline: object = field(default=None, repr=False)

    def training_set(self, sample: pd.DataFrame, n: int, seed: int) -> TrainingSet:
        """The K-shot ``sample`` (``text``, ``label``) plus up to ``n`` augmentations of each
        row (this method's own ``n`` when it sets one), labels copied."""
        n = self.n if self.n is not None else n
        sample = sample.reset_index(drop=True)  # augkit_source names a row by its index label: make it its position
        if self.generator == NONE or n == 0:
            frame, sources = sample, np.full(len(sample), -1)
        elif self.generator.startswith(NLPAUG_PREFIX):
            frame, sources = _nlpaug_augment(self.generator.removeprefix(NLPAUG_PREFIX), sample, n, seed)
        else:
            import augkit

            frame = augkit.augment(sample, self._pipeline, n=n, seed=seed, text_column="text", label_column="label")
            sources = np.where(frame["augkit_method"].notna(), frame["augkit_source"], -1).astype(int)
        is_augmented = sources >= 0
        weights = np.where(is_augmented, self.weight, 1.0)
        if self.per_source and is_augmented.any():
            kept = np.bincount(sources[is_augmented], minlength=len(sample))
            weights[is_augmented] *= n / kept[sources[is_augmented]]
        original_rows = np.flatnonzero(~is_augmented)
        if len(original_rows) != len(sample):
            raise RuntimeError(f"{self.label}: {len(original_rows)} originals came back for {len(sample)} sample rows")
        paraphrase_of = np.where(is_augmented, original_rows[np.maximum(sources, 0)], -1)
        return TrainingSet(frame["text"].tolist(), frame["label"].tolist(), weights, int(is_augmented.sum()),
                           paraphrase_of, self.into, bool(self.two_stage))


def parse_method(spec: str) -> Method:
    """Parse ``METHOD[@option=value,...]`` (see the module docstring); augkit pipelines are
    built here, so an unknown method, filter or parameter fails before any run starts."""
    generator, _, option_text = (part.strip() for part in spec.partition("@"))
    if not generator:
        raise MethodSpecError(f"method {spec!r} names no method")
    options = {}
    for item in filter(None, (part.strip() for part in option_text.split(","))):
        key, equals, value = (part.strip() for part in item.partition("="))
        if not equals or key not in OPTIONS:
            raise MethodSpecError(
                f"method {spec!r}: bad option {item!r}; options are {', '.join(f'{k}=...' for k in OPTIONS)}"
            )
        if OPTIONS[key] is str:
            if value not in INTO:
                raise MethodSpecError(f"method {spec!r}: option {key} is one of {', '.join(INTO)}, got {value!r}")
            options[key] = value
            continue
        try:
            options[key] = OPTIONS[key](ast.literal_eval(value))
        except (ValueError, SyntaxError) as error:
            raise MethodSpecError(f"method {spec!r}: option {key} needs a number, got {value!r}") from error
    if options.get("weight", 1.0) < 0 or options.get("n", 0) < 0 or options.get("oversample", 1.0) < 1:
        raise MethodSpecError(f"method {spec!r}: weight and n must be >= 0 and oversample >= 1")
    for flag in ("per_source", "two_stage"):
        if options.get(flag, 0) not in (0, 1):
            raise MethodSpecError(f"method {spec!r}: {flag} is 0 or 1")
    method = Method(label=_label(generator, options), generator=generator, **options)
    if generator == NONE:
        if options:
            raise MethodSpecError(f"method {spec!r}: 'none' takes no options")
    elif generator.startswith(NLPAUG_PREFIX):
        if generator.removeprefix(NLPAUG_PREFIX) not in NLPAUG_METHODS:
            raise MethodSpecError(
                f"unknown nlpaug method {generator!r}; available: {', '.join(NLPAUG_PREFIX + m for m in NLPAUG_METHODS)}"
            )
        if "oversample" in options:
            raise MethodSpecError(f"method {spec!r}: oversample applies to augkit pipelines only")
    else:
        import augkit

        method._pipeline = augkit.Pipeline.from_string(generator, oversample=method.oversample)
    return method


def _label(generator: str, options: dict) -> str:
    if not options:
        return generator
    return f"{generator}@" + ",".join(
        f"{key}={value}" if isinstance(value, str) else f"{key}={value:g}" for key, value in options.items()
    )


_NLPAUG_CACHE: dict[str, object] = {}


def _nlpaug_augment(kind: str, sample: pd.DataFrame, n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Each row followed by nlpaug's augmentations of it, with exact duplicates and unchanged
    copies dropped (augkit's default ``dedup`` rule, so both tools are credited only with
    distinct new texts), and each row's source position (-1 for originals). nlpaug has no
    per-call seed: its global generators are seeded first."""
    from benchmarks.peers import nlpaug_augmenters, seed_nlpaug

    if not _NLPAUG_CACHE:
        _NLPAUG_CACHE.update(nlpaug_augmenters(aug_p=0.1))
    augmenter = _NLPAUG_CACHE[kind]
    seed_nlpaug(seed)
    texts, labels, sources = [], [], []
    for position, (text, label) in enumerate(zip(sample["text"], sample["label"])):
        texts.append(text)
        labels.append(label)
        sources.append(-1)
        seen = {" ".join(text.split())}
        for candidate in augmenter.augment(text, n=n):
            key = " ".join(candidate.split())
            if key and key not in seen:
                seen.add(key)
                texts.append(candidate)
                labels.append(label)
                sources.append(position)
    return pd.DataFrame({"text": texts, "label": labels}), np.array(sources)
