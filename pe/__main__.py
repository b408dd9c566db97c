"""``python -m pe``: the package's command line.

``python -m pe explain config.json [more.json ...] [--json] [--seq-len N]``
prints, for each configuration file, what each kind of layer's positions get
(`pe.explain`). It reads the files as they are published, with nothing but
pe and numpy: no transformers, no network.

``python -m pe identify PATH [--tensor NAME] [--kind KIND] [--json]`` prints
`pe.identify`'s report on a saved array (``.npy``; ``.pt`` and
``.safetensors``, one tensor of which ``--tensor`` names) or on an importable
``module:function``. Reading ``.pt`` needs torch (``torch.load`` with
``weights_only=True``: tensors, never code).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pe._explain import explain, explanation
from pe._identify import KINDS, identify


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
    command = commands.add_parser(
        "identify",
        help="name the positional encoding a saved table or a function computes",
        description="Identify a sinusoidal table, a 2-D grid table, a RoPE cos/sin pair or a "
        "timestep-embedding or rotary function: which convention or preset it is, with its "
        "parameters, or the closest one and how it differs.",
    )
    command.add_argument(
        "path", metavar="PATH", help="an .npy, .pt or .safetensors file, or module:function"
    )
    command.add_argument("--tensor", help="the tensor to read from a .pt or .safetensors file")
    command.add_argument("--kind", choices=KINDS, help="what PATH holds (default: guessed)")
    command.add_argument("--json", action="store_true", help="print JSON instead of text")
    return parser


def _load(path: str, tensor: str | None) -> Any:
    """Return the array saved at `path`, or the function `path` names (``module:function``)."""
    file = Path(path)
    if file.suffix == ".npy":
        return np.load(file, allow_pickle=False)
    if file.suffix == ".safetensors":
        from safetensors import safe_open

        framework = "pt" if importlib.util.find_spec("torch") else "numpy"
        with safe_open(str(file), framework=framework) as saved:
            names = list(saved.keys())
            return saved.get_tensor(_pick(names, tensor, file))
    if file.suffix in (".pt", ".pth", ".bin"):
        import torch

        loaded = torch.load(file, map_location="cpu", weights_only=True)
        if isinstance(loaded, dict):
            return loaded[_pick([str(key) for key in loaded], tensor, file)]
        if isinstance(loaded, (tuple, list)) and tensor is None:
            return tuple(loaded)
        return loaded
    if ":" in path and not file.exists():
        module_name, _, attribute = path.partition(":")
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
        return target
    raise ValueError(
        f"PATH must be an .npy, .pt or .safetensors file, or module:function; got {path!r}"
    )


def _pick(names: list[str], tensor: str | None, file: Path) -> str:
    if tensor is None:
        if len(names) == 1:
            return names[0]
        raise ValueError(f"{file} holds {len(names)} tensors: name one with --tensor ({names})")
    if tensor not in names:
        raise ValueError(f"{file} has no tensor {tensor!r}; it holds {names}")
    return tensor


def _identify(arguments: argparse.Namespace) -> int:
    try:
        found = identify(_load(arguments.path, arguments.tensor), kind=arguments.kind)
    except (OSError, ValueError, TypeError, ImportError, AttributeError, KeyError) as error:
        print(f"{arguments.path}: {error}", file=sys.stderr)
        return 1
    print(json.dumps(found.as_dict(), indent=2) if arguments.json else str(found))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 1 if a file was refused)."""
    arguments = _parser().parse_args(argv)
    if arguments.command == "identify":
        return _identify(arguments)
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
