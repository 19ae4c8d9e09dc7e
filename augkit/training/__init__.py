"""The rules every ``augkit train`` target follows, written once (:mod:`~augkit.training.folder`,
:mod:`~augkit.training.settings`, :mod:`~augkit.training.progress`): its output folder, checkpoints
and ``--resume``, the training record, the trainer's arguments, a time budget.

- :func:`training_folder` holds the output folder for one run: a second run on the same folder
  is refused while the first holds it (an OS lock, as ``augkit augment`` jobs have), and a
  folder holding checkpoints of an earlier run is refused unless the run resumes it.
- :func:`training_arguments` builds transformers' ``TrainingArguments`` (or a subclass) from a
  target's settings: AdamW with linear decay, checkpoints every ``save_steps``, no reporting
  service, the device chosen as augkit chooses it.
- :class:`TrainerSettings` holds the settings every target shares and their checks, and
  :class:`TrainerArgumentsSettings` adds those transformers' Trainer reads; a target's
  settings dataclass subclasses one, with its own defaults and fields.
- :func:`add_settings_options` gives each field of a target's settings dataclass its option
  (``learning_rate`` -> ``--learning-rate``, typed as its default).
- :func:`time_budget_callback` stops a run cleanly at the first step boundary past a number of
  minutes, with a checkpoint that ``--resume`` continues from.
- :func:`write_training_record` writes :data:`TRAINING_RECORD` beside the model: what was
  trained, on what, how long and how the loss moved.
- :class:`TrainingProgress` says how far a run got (epochs, fractional) and how its loss (or,
  for reinforcement learning, its mean reward) moved: first, best and last, with steps; its
  :attr:`~TrainingProgress.warnings` say plainly when the run ended before one epoch or the
  loss did not fall. Every target prints them and records them with the model, and
  :func:`warn_if_trained_with_warnings` repeats them once when a method loads that model.

Nothing here imports torch or transformers until a function needs them.

>>> with training_folder("my-model", resume=False) as resume_from:        # doctest: +SKIP
...     trainer.train(resume_from_checkpoint=resume_from)
...     write_training_record("my-model", {"steps": trainer.state.global_step})
"""
