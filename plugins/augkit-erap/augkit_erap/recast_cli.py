"""``augkit erap recast-sick``: SICK recast into relation-labelled paraphrase pairs (ERAP,
section 3; :mod:`augkit_erap.recast_sick`), written as a table, with the counts per split
and relation printed beside the paper's Table 1.

    augkit erap recast-sick SICK.txt -o recast-sick.csv
    augkit erap recast-sick SICK.txt -o recast-sick.jsonl --pairs same-original --force

``augkit erap`` is one command with subcommands; :func:`add_recast_sick_parser` adds
``recast-sick`` to the subparsers of whatever ``augkit erap`` parser the package builds, and
:func:`add_arguments` / :func:`run` are that parser while ``recast-sick`` is its only one.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from augkit.plugin import UsageError

HELP = "ERAP's data tools (`augkit erap recast-sick`: SICK recast into relation-labelled paraphrase pairs)"
RECAST_HELP = "recast SICK into paraphrase pairs labelled equivalence/forward/reverse/... (ERAP, section 3)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``augkit erap COMMAND``; one command so far, ``recast-sick``."""
    commands = parser.add_subparsers(dest="erap_command", metavar="COMMAND", required=True)
    add_recast_sick_parser(commands)


def run(args: argparse.Namespace) -> int:
    """Run the ``augkit erap`` subcommand named on the command line."""
    handler = getattr(args, "erap_run", None)
    if handler is None:
        raise UsageError(f"unknown erap command {getattr(args, 'erap_command', None)!r}; available: recast-sick")
    return handler(args)


def add_recast_sick_parser(commands) -> argparse.ArgumentParser:
    """Add ``recast-sick`` to ``commands`` (an argparse subparsers object); its namespace
    gets ``erap_run`` = :func:`run_recast_sick`."""
    from augkit_erap.recast_sick import DEFAULT_PAIR_RULE, PAIR_RULES

    parser = commands.add_parser(
        "recast-sick", help=RECAST_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "ERAP (Sancheti et al. 2022), section 3. Each SICK pair (A, B) gets the relation of B to A from its two gold\n"
            "NLI labels (entailment_AB, entailment_BA) by equation 7: equivalence, forward (A entails B), reverse,\n"
            "contradiction, neutral or invalid. --pairs says which pairs are kept:\n"
            "  meaning-preserving (default): both sentences are a normalised caption (S1) or a rewrite of one whose\n"
            "      pair with it kept the meaning (S2), read from the pairs that share an original caption;\n"
            "  same-original: the pairs made within one original caption's family (meaning-altering rewrites too);\n"
            "  all: every pair.\n"
            "Every kept equivalence pair also gives (B, A) equivalence, every forward pair (B, A) reverse (column\n"
            "reversed = true). Splits: SemEval_set TRAIN -> train, TRIAL -> dev, TEST -> test. Columns of the output:\n"
            "pair_ID, split, source, paraphrase, relation, reversed. The counts per split and relation are printed\n"
            "beside the paper's Table 1 (docs/methods/erap-recast-sick.md explains the differences).\n"
            "Exit codes: 0 done; 2 bad arguments or input (an existing output without --force included)."
        ),
    )
    parser.add_argument("sick", metavar="SICK.txt", help="the full SICK release's SICK.txt (tab-separated, both-direction labels)")
    parser.add_argument("-o", "--output", required=True, help="recast pairs to write (.csv, .tsv, .jsonl)")
    parser.add_argument("--pairs", choices=PAIR_RULES, default=DEFAULT_PAIR_RULE,
                        help=f"which SICK pairs are recast (default: {DEFAULT_PAIR_RULE})")
    parser.add_argument("--force", action="store_true", help="overwrite the output if it exists")
    parser.set_defaults(erap_run=run_recast_sick)
    return parser


def run_recast_sick(args: argparse.Namespace) -> int:
    """Recast, write, print the counts beside Table 1; usage errors (exit 2) before any work."""
    from augkit.plugin import table_format, write_table
    from augkit_erap.recast_sick import comparison_table, recast_sick, relation_counts

    sick, output = Path(args.sick), Path(args.output)
    table_format(output)  # an unknown output format fails before any work
    if output.exists() and output.resolve() == sick.resolve():
        raise UsageError("the output file would overwrite SICK.txt; choose another -o")
    if not output.parent.exists():
        raise UsageError(f"output directory {str(output.parent)!r} does not exist")
    if output.exists() and not args.force:
        raise UsageError(f"{str(output)!r} exists; give --force to overwrite it, or choose another -o")
    recast = recast_sick(sick, args.pairs)
    write_table(recast, output)
    table = comparison_table(relation_counts(recast))
    print(f"Recast SICK (--pairs {args.pairs}) beside Table 1 of Sancheti et al. 2022 "
          "(others: neutral or invalid; Table 1 counts contradictions nowhere):")
    print(table.to_string())
    mirrored = int(recast["reversed"].sum())
    print(f"augkit erap recast-sick: {len(recast) - mirrored} SICK pairs kept ({args.pairs}), {mirrored} reversed pairs "
          f"added; wrote {len(recast)} rows to {output}", file=sys.stderr)
    return 0
