"""FAQ-paraphrasing evidence (issue 5): counts per selection step and a retrieval test on the
shared StackFAQ and JHU COVID FAQ data. Run ``python -m benchmarks.faq --help``."""
