"""``augkit serve``: the page for every method as a local web page (gradio, extra ``augkit[ui]``).

    augkit serve                        # http://127.0.0.1:7860
    augkit serve --port 8080 --max-file-size 5MB

Binds 127.0.0.1 unless ``--host`` says otherwise; no public share link and no analytics; every
file it writes (uploads, built files) goes under one fresh temporary folder, removed when the
server stops.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile

from augkit.errors import UsageError
from augkit.web.uploads import DEFAULT_MAX_FILE_SIZE, format_size, parse_size

HELP = "serve a local web page to try methods and pipelines on your table (needs augkit[ui])"
UI_EXTRA = "augkit serve needs the web UI extra: pip install 'augkit[ui]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``augkit serve``."""
    parser.description = (
        "Start a local web page: upload a labelled table, pick a method or pipeline, preview its candidates with "
        "their trace, run on the whole table, download the result, its trace and the command that reproduces it. "
        "Plugins add tabs (augkit-faq: FAQ paraphrasing)."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=_port, default=7860, help="port, 1-65535 (default: 7860)")
    parser.add_argument("--max-file-size", default=DEFAULT_MAX_FILE_SIZE,
                        help=f"largest upload accepted, e.g. 500KB or 20MB (default: {DEFAULT_MAX_FILE_SIZE})")


def _port(text: str) -> int:
    """A TCP port number, or argparse's usage error naming the value."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a whole number from 1 to 65535, got {text!r}")
    return port


def run(args: argparse.Namespace) -> int:
    """Serve until interrupted; the temporary folder goes with the server."""
    limit = parse_size(args.max_file_size)
    temp_dir = tempfile.mkdtemp(prefix="augkit-serve-")
    os.environ["GRADIO_TEMP_DIR"] = temp_dir  # read by gradio when it is imported
    os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
    try:
        try:
            from augkit.web.app import build_app
        except ImportError as error:
            if (error.name or "").split(".")[0] != "gradio":
                raise
            raise UsageError(UI_EXTRA) from None
        app = build_app(limit, temp_dir)
        print(f"augkit serve: http://{args.host}:{args.port} (uploads up to {format_size(limit)}; files under {temp_dir}); "
              "Ctrl-C stops", file=sys.stderr)
        try:
            app.launch(server_name=args.host, server_port=args.port, share=False, max_file_size=limit,
                       inbrowser=False, show_error=True, quiet=True)
        except OSError as error:  # the port is taken, or the address is not this machine's
            reason = str(error).split(". ")[0]  # gradio goes on with advice for its own API
            raise UsageError(f"cannot serve on {args.host}:{args.port}: {reason}; pick another --port or --host") from None
    except KeyboardInterrupt:
        pass  # Ctrl-C, or SIGTERM (augkit's command line raises it like Ctrl-C): stop serving
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
    print(f"augkit serve: stopped; removed {temp_dir}", file=sys.stderr)
    return 0
