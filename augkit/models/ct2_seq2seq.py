"""The CTranslate2 engine of the seq2seq runtime (``load_seq2seq(..., runtime="ctranslate2")``).

The same :class:`~augkit.models.seq2seq.Seq2SeqModel` interface (``generate``, ``score``,
``forbidden_unigrams``), the same length-sorted, token-budget batches, long-input splitting
and warnings; the forward passes run in CTranslate2's C++ decoder (int8 or float32 weights)
instead of torch. What differs, and why:

- **Beam search** is CTranslate2's: its stopping rule (all ``num_beams`` hypotheses
  finished) and length normalisation are its own, so outputs may differ from the
  transformers engine on near-ties (docs/models.md gives the measured agreement).
  Outputs do not depend on the batch (tested: each input alone and in batches).
- **Sampling** is augkit's own, step by step on CTranslate2's logits (see
  :mod:`augkit.models.ct2_sampling`): CTranslate2's sampler draws from one random generator
  per worker thread, seeded once, which no row's seed can reach. Same seed, same samples,
  whatever the batch; other samples than the transformers engine's for the same seed (numpy
  draws them, not torch), from the same distribution; slower per token than beam search, as
  each step decodes the prefix again.
- **Constraints**: the model's single-token ``bad_words_ids`` and per-input bans (Bart-uni)
  become ``suppress_sequences`` (an input with bans of its own is decoded alone, since
  CTranslate2 takes one list per call); ``min_new_tokens`` is ``min_decoding_length``;
  ``max_new_tokens`` (else the model's ``max_length``) is ``max_decoding_length``. Other
  constraints of a generation config (forced first tokens, multi-token bad words) are not
  applied, and a model that needs them is refused when loaded.
- **Scores** are CTranslate2's ``score_batch`` log-probabilities of each target token and
  the end of sequence, one pair per internal batch (its sums move in the last bits with the
  batch's shape): the transformers engine's teacher-forced scores within 1e-3 in float32
  (tested), except that a Marian model's padding token, which CTranslate2 drops from the
  vocabulary, takes no probability mass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from augkit.errors import InvalidParameterError, MissingDependencyError
from augkit.models.ct2_sampling import SamplingSettings, logits_step, sample_sequences
from augkit.models.seq2seq import Seq2SeqModel, _Unit

#: Compute types augkit accepts for CTranslate2 on a CPU (``auto``: CTranslate2's fastest).
COMPUTE_TYPES = ("auto", "int8", "int8_float32", "int16", "float32")


class CTranslate2Seq2Seq(Seq2SeqModel):
    """A seq2seq model run by CTranslate2; get it from
    ``load_seq2seq(spec, runtime="ctranslate2", compute_type=..., threads=...)``."""

    def __init__(self, name: str, translator: Any, tokenizer: Any, device: str, *, hf_config: Any,
                 generation_config: Any, compute_type: str, target_vocabulary: Sequence[str]):
        super().__init__(name, translator, tokenizer, device)
        self._target_tokens = tuple(target_vocabulary)  # in the order of the decoder's logits
        self._target_vocabulary = frozenset(target_vocabulary)
        self._hf_config = hf_config
        self._generation_config = generation_config
        self.compute_type = compute_type

    @property
    def model_config(self) -> Any:
        return self._hf_config

    @property
    def generation_config(self) -> Any:
        return self._generation_config

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, device={self.device!r}, compute_type={self.compute_type!r})"

    def _generate_batch(self, batch: list[_Unit], options: dict, num_return: int, seed: int | None,
                        skip_special_tokens: bool = True, banned: list[tuple[int, ...]] | None = None) -> list[list[str]]:
        sources = [self.tokenizer.convert_ids_to_tokens(list(unit.ids)) for unit in batch]
        if options["do_sample"]:  # a batch holds the pieces of one input: one list of bans
            step = logits_step(self.model, sources, self._suppressed(banned[0] if banned else ()))
            sampled = sample_sequences(step, len(sources), num_return, self._sampling_settings(options),
                                       self._target_tokens, seed)
            return [[self._decode(tokens, skip_special_tokens) for tokens in sequences] for sequences in sampled]
        common = self._decoding_options(options, num_return)
        if banned is None or not any(banned):
            results = self.model.translate_batch(sources, suppress_sequences=self._suppressed(()), **common)
        else:  # one call per input: suppress_sequences is one list for a whole call
            results = [self.model.translate_batch([source], suppress_sequences=self._suppressed(bans), **common)[0]
                       for source, bans in zip(sources, banned, strict=True)]
        return [[self._decode(tokens, skip_special_tokens) for tokens in result.hypotheses[:num_return]]
                for result in results]

    def _decoding_options(self, options: dict, num_return: int) -> dict[str, Any]:
        generation = self._generation_config
        max_new = self._max_new_tokens(options)
        if options.get("forced_eos_token_id", generation.forced_eos_token_id) is not None:
            max_new -= 1  # transformers spends the last step on the forced end; CTranslate2 just stops
        # transformers' minimum counts the forced end too: never more than the content allowed
        min_new = min(options.get("min_new_tokens", generation.min_new_tokens) or 0, max(1, int(max_new)))
        return {"beam_size": options["num_beams"], "num_hypotheses": num_return, "max_decoding_length": max(1, int(max_new)),
                "min_decoding_length": int(min_new), "length_penalty": float(generation.length_penalty or 1.0),
                "max_input_length": 0}

    def _max_new_tokens(self, options: dict) -> int:
        """The new-token limit: the call's ``max_new_tokens``, else the generation config's,
        else its ``max_length`` less the decoder's start token (transformers counts it)."""
        generation = self._generation_config
        return int(options.get("max_new_tokens") or generation.max_new_tokens or max(1, (generation.max_length or 256) - 1))

    def _sampling_settings(self, options: dict) -> SamplingSettings:
        """Sampling as transformers does it for this model: its generation config's top-k
        (50 unless set), top-p and temperature unless the call gives them, its lengths, and
        its forced end of sequence on the last step."""
        generation = self._generation_config
        max_new = self._max_new_tokens(options)
        min_new = min(options.get("min_new_tokens", generation.min_new_tokens) or 0, max_new)
        top_k = options["top_k"] if "top_k" in options else generation.top_k
        top_p = options["top_p"] if "top_p" in options else generation.top_p
        return SamplingSettings(top_k=top_k or None, top_p=1.0 if top_p is None else float(top_p),
                                temperature=float(generation.temperature or 1.0), max_new=int(max_new), min_new=int(min_new),
                                end_token=self.tokenizer.eos_token,
                                forced_end=options.get("forced_eos_token_id", generation.forced_eos_token_id) is not None)

    def _suppressed(self, bans: Sequence[int]) -> list[list[str]] | None:
        eos = self._generation_config.eos_token_id
        eos_ids = {eos} if isinstance(eos, int) else set(eos or [])
        single = [ids[0] for ids in (self._generation_config.bad_words_ids or []) if len(ids) == 1 and ids[0] not in eos_ids]
        # a token the converted vocabulary dropped (Marian's padding) can never be generated
        tokens = [t for t in self.tokenizer.convert_ids_to_tokens(list(dict.fromkeys([*single, *bans])))
                  if t in self._target_vocabulary]
        return [[token] for token in tokens] or None

    def _decode(self, tokens: list[str], skip_special_tokens: bool) -> str:
        ids = self.tokenizer.convert_tokens_to_ids(tokens)
        if skip_special_tokens:
            return self.tokenizer.decode(ids, skip_special_tokens=True).strip()
        ends = {self.tokenizer.pad_token_id, self.tokenizer.eos_token_id}
        return self.tokenizer.decode([t for t in ids if t not in ends], skip_special_tokens=False).strip()

    def _target_logprobs(self, sources: list[tuple[int, ...]], targets: list[tuple[int, ...]]) -> list[float]:
        eos = self.tokenizer.eos_token_id
        source_tokens = [self.tokenizer.convert_ids_to_tokens(list(ids)) for ids in sources]
        # CTranslate2 appends the end of sequence itself (and scores it)
        target_tokens = [self.tokenizer.convert_ids_to_tokens(list(ids[:-1] if ids and ids[-1] == eos else ids))
                         for ids in targets]
        # one pair per internal batch: CTranslate2's sums move in the last bits with the batch's
        # shape, and a score must not depend on the other pairs
        results = self.model.score_batch(source_tokens, target_tokens, max_batch_size=1, max_input_length=0)
        return [float(sum(result.log_probs)) for result in results]


def load_ctranslate2(source: Any, device: str, compute_type: str, threads: int | None) -> CTranslate2Seq2Seq:
    """Convert (once, cached) and load ``source`` for CTranslate2 on ``device``."""
    try:
        import ctranslate2
    except ImportError as error:
        raise MissingDependencyError('runtime="ctranslate2" needs the ctranslate2 package: pip install "augkit[ctranslate2]"') from error
    from transformers import (
        AutoConfig,
        AutoTokenizer,
        GenerationConfig,
        PretrainedConfig,
    )

    from augkit.models.ct2_conversion import converted_model

    if compute_type not in COMPUTE_TYPES:
        raise InvalidParameterError(f"compute_type must be one of {', '.join(COMPUTE_TYPES)}, got {compute_type!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 0):
        raise InvalidParameterError(f"threads must be a whole number >= 0 (0: CTranslate2 decides), got {threads!r}")
    folder = converted_model(source, compute_type)
    tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=False)
    hf_config_file = folder / "hf_config.json"
    hf_config = AutoConfig.from_pretrained(str(hf_config_file)) if hf_config_file.is_file() else PretrainedConfig()
    try:
        generation_config = GenerationConfig.from_pretrained(str(folder))
    except OSError:
        generation_config = GenerationConfig.from_model_config(hf_config)
    _check_supported(generation_config, str(source.spec))
    ct2_device = "cuda" if device.startswith("cuda") else "cpu"
    translator = ctranslate2.Translator(str(folder), device=ct2_device, compute_type=compute_type,
                                        intra_threads=threads or 0)
    return CTranslate2Seq2Seq(str(source.spec), translator, tokenizer, device, hf_config=hf_config,
                              generation_config=generation_config, compute_type=compute_type,
                              target_vocabulary=_target_vocabulary(folder))


def _target_vocabulary(folder: Any) -> list[str]:
    """The tokens the converted decoder can produce, in the order of its logits (its
    ``*_vocabulary.json`` or ``.txt``)."""
    import json

    for name in ("target_vocabulary", "shared_vocabulary"):
        if (folder / f"{name}.json").is_file():
            return json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        if (folder / f"{name}.txt").is_file():
            return (folder / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    raise InvalidParameterError(f"{folder} has no target or shared vocabulary file: not a CTranslate2 translation model")


def _check_supported(generation: Any, name: str) -> None:
    """Refuse a model whose generation config asks for constraints this engine cannot apply."""
    unsupported = []
    if generation.forced_bos_token_id is not None:
        unsupported.append("forced_bos_token_id")
    if any(len(ids) > 1 for ids in (generation.bad_words_ids or [])):
        unsupported.append("multi-token bad_words_ids")
    if unsupported:
        raise InvalidParameterError(f"{name}: its generation config asks for {', '.join(unsupported)}, which the CTranslate2 "
                                    "engine does not apply; use runtime='transformers' for this model")
