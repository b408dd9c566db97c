"""``python -m pe``: the package's command line.

``python -m pe explain config.json [more.json ...] [--json] [--seq-len N]``
prints, for each configuration file, what each kind of layer's positions get
(`pe.explain`). It reads the files as they are published, with nothing but
pe and numpy: no transformers, no network.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pe._explain import explain, explanation


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pe", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser(
        "explain",
        help="say what a model's config.json gives each layer's positions",
        description="Read each config.json as the model reads it and say, for each kind of "
        "layer: the RoPE rule, base, head and rotated widths, layout, attention factor, "
        "layers without RoPE, trained length, critical dimension, and the key each came from.",
    )
    command.add_argument("paths", nargs="+", type=Path, metavar="config.json")
    command.add_argument("--json", action="store_true", help="print JSON instead of text")
    command.add_argument(
        "--seq-len",
        type=int,
        default=None,
        help="the length served, for the rules that depend on it (dynamic, longrope)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 1 if a file was refused)."""
    arguments = _parser().parse_args(argv)
    status = 0
    reports: list[dict[str, object]] = []
    texts: list[str] = []
    for path in arguments.paths:
        try:
            config = json.loads(path.read_text(encoding="utf-8"))
            if arguments.json:
                reports.append(
                    {"path": str(path), **explanation(config, seq_len=arguments.seq_len)}
                )
            else:
                text = explain(config, seq_len=arguments.seq_len)
                header = f"{path}\n" if len(arguments.paths) > 1 else ""
                texts.append(header + text)
        except (OSError, ValueError, TypeError) as error:
            print(f"{path}: {error}", file=sys.stderr)
            status = 1
    if arguments.json:
        print(
            json.dumps(reports[0] if len(arguments.paths) == 1 and reports else reports, indent=2)
        )
    else:
        print("\n\n".join(texts))
    return status


if __name__ == "__main__":
    sys.exit(main())
