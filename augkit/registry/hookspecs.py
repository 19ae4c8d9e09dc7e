"""The hooks a plugin may implement. A plugin is any module named by an ``augkit`` entry
point; it decorates functions with :data:`hookimpl`."""

from __future__ import annotations

from collections.abc import Callable

import pluggy

hookspec = pluggy.HookspecMarker("augkit")
hookimpl = pluggy.HookimplMarker("augkit")


@hookspec
def register_augmenters(register: Callable[[type], None]) -> None:
    """Register augmenter classes: call ``register(MyAugmenter)`` once per class.

    The class must subclass :class:`augkit.Augmenter` and set a unique ``name``.
    """


@hookspec
def register_filters(register: Callable[[type], None]) -> None:
    """Register filter classes: call ``register(MyFilter)`` once per class.

    The class must subclass :class:`augkit.Filter` and set a unique ``name``.
    """


@hookspec
def register_commands(register: Callable[..., None]) -> None:
    """Register subcommands of the ``augkit`` command line: call
    ``register(name, add_arguments, run, help=...)`` once per command; ``add_arguments(parser)`` adds its
    argparse arguments, ``run(args) -> int`` executes it and returns the exit code.

    ``name`` follows the rules of method names and must not be a built-in command (``list``,
    ``info``, ``augment``, ``evaluate``, ``train``, ``tune``, ``serve``) or another plugin's. Import heavy libraries
    inside ``run``, not at module level: every ``augkit`` invocation builds every plugin's parser.
    A command that trains a model is a training target instead (:func:`register_training_targets`).
    """


@hookspec
def register_training_targets(register: Callable[..., None]) -> None:
    """Register targets of ``augkit train``: call ``register(name, add_arguments, run, help=...)``
    once per target, as for :func:`register_commands`; ``augkit train NAME ARGS...`` parses
    ``ARGS`` with the parser ``add_arguments(parser)`` filled and calls ``run(args) -> int``.

    Several plugins can each add targets to the one ``train`` command (``augkit train
    paraphraser``, ``augkit train pointer``, ...); a name taken by another plugin is reported and
    skipped. ``add_arguments`` runs only when its target is asked for; import heavy libraries
    inside ``run``. The shared rules of a training run (the output folder, checkpoints,
    ``--resume``, the training record) are in :mod:`augkit.plugin`.
    """


@hookspec
def register_web_tabs(register: Callable[..., None]) -> None:
    """Add a tab to ``augkit serve``'s page: call ``register(name, build, title=...)``;
    ``build(context)`` is called inside the tab while the page is built and adds its gradio
    components. ``context`` (:class:`augkit.plugin.TabContext`) holds the upload limit, the
    server's temporary folder and the page's upload rules: read uploads with
    ``context.read_upload(path)`` and write built files only where ``context.download_path``
    puts them, under ``context.temp_dir``. Import gradio inside ``build``, never at module
    level (``import augkit`` must not import it).
    """
