"""augkit-faq: grow a small FAQ with paraphrases of its questions that keep their answer
(Ng 2021, "Generating domain-specific paraphrases of questions from FAQ").

Abbreviations written "Expansion (ABBR)" are shortened before generation and restored after;
a seq2seq paraphraser (or any augkit method) proposes candidates; a candidate is kept when it
means the same as its question (similarity >= 0.8) and, used as a query, retrieves its own
question first among all the FAQ's questions. Command: ``augkit faq``; a tab of ``augkit
serve``'s page; training target: ``augkit train paraphraser``. Importing this package loads no model library.
"""

from __future__ import annotations

import augkit
from augkit.plugin import renamed_module_names
from augkit_faq.augmenter import FAQParaphraser
from augkit_faq.faq import FaqResult, paraphrase_faq

__all__ = ["FAQParaphraser", "FaqResult", "paraphrase_faq"]


@augkit.hookimpl
def register_augmenters(register):
    register(FAQParaphraser)


@augkit.hookimpl
def register_commands(register):
    from augkit_faq import faq_cli

    register("faq", faq_cli.add_arguments, faq_cli.run, help=faq_cli.HELP)


@augkit.hookimpl
def register_web_tabs(register):
    register("faq", _build_web_tab, title="FAQ paraphrasing")


def _build_web_tab(context):
    """The FAQ tab of ``augkit serve``; gradio is imported here, when the page is built."""
    from augkit_faq.web_ui import build_tab

    build_tab(context)


@augkit.hookimpl
def register_training_targets(register):
    from augkit_faq import train_cli

    register("paraphraser", train_cli.add_arguments, train_cli.run, help=train_cli.HELP)  # `augkit train paraphraser`

#: Old class names, importable until augkit 0.3 (docs/plugin-authors.md, "One name per idea").
__getattr__ = renamed_module_names(__name__, {"FaqParaphraser": "FAQParaphraser"}, globals())
