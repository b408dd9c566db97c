"""Published ``config.json`` files, read raw by pe, against transformers' own modules.

Every file of ``configs/`` (copies of published files, each with its source in
``configs/sources.json``) is read twice: by `pe.read_config` and
`RotaryEmbedding.from_config` from the raw dict, and by the pinned
transformers through the family's own configuration class and rotary module.
For every kind of layer pe names, queries and keys rotated by pe equal the
family's own rotary module and apply function at positions up to twice the
trained length (float32 rounding); a layer pe calls unrotated is one whose
attention module, built by transformers for that layer index, does not rotate.
A file pe refuses must be refused with a message naming the key.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import re
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import pe
from pe._config import _POSITIONAL_NAME, NOT_POSITIONAL, POSITION_KEYS
from pe.nn import NoRotation, RotaryEmbedding

transformers = pytest.importorskip("transformers")
from test_rope_scaling import _quiet_transformers  # noqa: E402, F401 (autouse: logs kept quiet)

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "configs"
FILES = sorted(path.relative_to(CORPUS).as_posix() for path in CORPUS.glob("*/*.json"))

#: Files pe refuses, with the key the refusal must name.
REFUSED: dict[str, str] = {}

#: Files of model types the pinned transformers does not have (remote code), with the
#: transformers model type they are compared with and the warning pe gives.
REMOTE: dict[str, tuple[str, str]] = {
    "kimi/kimi-k2-instruct.json": ("deepseek_v3", "auto_map names DeepseekV3Config"),
    "nemotron/llama-3.3-nemotron-super-49b-v1.json": ("llama", "not a model type pe knows"),
}


def load(path: str) -> dict[str, Any]:
    with open(CORPUS / path, encoding="utf-8") as file:
        result: dict[str, Any] = json.load(file)
    return result


def their_config(raw: dict[str, Any], model_type: str | None = None) -> Any:
    """transformers' config object for a raw file, and the language model's part of it."""
    cls = transformers.CONFIG_MAPPING[model_type or raw["model_type"]]
    kept = {k: v for k, v in copy.deepcopy(raw).items() if k != "model_type"}
    if model_type is not None:  # another family's class: leave it the sizes it checks
        kept = {k: v for k, v in kept.items() if v is not None}
    config = cls.from_dict(kept)
    return config.get_text_config() if hasattr(config, "get_text_config") else config


def modeling(text: Any) -> Any:
    return importlib.import_module(type(text).__module__.replace("configuration_", "modeling_"))


def rotary_class(module: Any) -> Any:
    names = [
        name
        for name in dir(module)
        if name.endswith("RotaryEmbedding") and "Vision" not in name and name[0] != "_"
    ]
    return getattr(module, max(names, key=len)) if names else None


def positions_for(kind: pe.LayerRope) -> torch.Tensor:
    """0..15, then 24 positions spread up to twice the trained length."""
    longest = 2 * (kind.trained_length or kind.max_position_embeddings or 4096)
    spread = np.unique(np.geomspace(16, longest - 1, 24).astype(np.int64))
    return torch.from_numpy(np.concatenate([np.arange(16), spread]))


def theirs(
    text: Any, kind: pe.LayerRope, q: torch.Tensor, positions: torch.Tensor, function: str
) -> torch.Tensor:
    """q (shape (seq, head_dim)) rotated by the family's rotary module and `function`."""
    module = modeling(text)
    n, width = q.shape
    if type(text).__name__ == "GPTJConfig":
        rotated = text.rotary_dim or width
        table = module.create_sinusoidal_positions(int(positions.max()) + 1, rotated)
        sin, cos = torch.split(table[positions][None], rotated // 2, dim=-1)
        head = module.apply_rotary_pos_emb(q[None, :, None, :rotated], sin, cos)[0, :, 0]
        return torch.cat([head, q[:, rotated:]], dim=-1)
    rotary = rotary_class(module)(text)
    ids = positions[None]
    if "mrope_section" in (getattr(text, "rope_parameters", None) or {}):
        ids = ids.expand(3, 1, n)  # text tokens: the same position on every axis
    arguments = inspect.signature(rotary.forward).parameters
    extra = {"layer_type": kind.kind} if "layer_type" in arguments else {}
    out = rotary(q[None], ids, **extra)
    if isinstance(out, torch.Tensor):  # complex freqs_cis: Llama 4, DeepSeek-V2
        apply = getattr(module, function)
        if "llama4" in module.__name__:
            rotated, _ = apply(q[None, :, None], q[None, :, None], out)
            return torch.as_tensor(rotated[0, :, 0])
        rotated, _ = apply(q[None, None], q[None, None], out)
        return torch.as_tensor(rotated[0, 0])
    cos, sin = out
    apply = getattr(module, function)
    interleave = function.endswith("_interleave")
    one = list(inspect.signature(apply).parameters)[:3] == ["x", "cos", "sin"]
    for rotated_width in (cos.shape[-1], 2 * cos.shape[-1]):  # gpt-oss: cos of half width
        part = q[None, None, :, :rotated_width]
        try:
            head = apply(part, cos, sin) if one else apply(part, part, cos, sin)[0]
            break
        except RuntimeError:
            continue
    head = head[0, 0]
    if interleave:  # transformers writes the turned pairs back as [evens | odds]
        head = torch.stack([head[:, : rotated_width // 2], head[:, rotated_width // 2 :]], -1)
        head = head.flatten(-2)
    return torch.cat([head, q[:, rotated_width:]], dim=-1)


def applied(text: Any, index: int) -> list[str]:
    """The rotary functions transformers' own attention module of layer `index` calls.

    The module is built for that layer on the meta device (no memory, no values) and run
    once on four positions, with every ``apply_rotary*`` function of its modeling file
    wrapped to record its name: the model's own code decides what it turns, and with
    which function. Layers without softmax attention call none.
    """
    kinds = getattr(text, "layer_types", None)
    if kinds and kinds[index] in ("linear_attention", "conv", "mamba"):
        return []
    module = modeling(text)
    names = [
        name for name in dir(module) if name.startswith("apply_rotary") and "vision" not in name
    ]
    called: list[str] = []
    originals = {name: getattr(module, name) for name in names}

    def recorder(name: str, original: Any) -> Any:
        def record(*args: Any, **kwargs: Any) -> Any:
            called.append(name)
            return original(*args, **kwargs)

        return record

    classes = [
        getattr(module, name)
        for name in dir(module)
        if name.endswith("Attention") and "Vision" not in name and name[0] != "_"
    ]
    cls = max(classes, key=lambda c: ("Text" in c.__name__, -len(c.__name__)))
    try:
        for name, original in originals.items():
            setattr(module, name, recorder(name, original))
        with torch.device("meta"):
            attention = cls(text, layer_idx=index)
            rotary = rotary_class(module)(text)
            hidden = torch.empty(1, 4, text.hidden_size)
            ids = torch.arange(4)[None]
            if "mrope_section" in (getattr(text, "rope_parameters", None) or {}):
                ids = ids.expand(3, 1, 4)
            extra = {}
            if "layer_type" in inspect.signature(rotary.forward).parameters and kinds:
                extra["layer_type"] = kinds[index]
            arguments: dict[str, Any] = {
                "hidden_states": hidden,
                "position_embeddings": rotary(hidden, ids, **extra),
                "attention_mask": torch.zeros(1, 1, 4, 4),
            }
            accepted = inspect.signature(attention.forward).parameters
            if "position_ids" in accepted:
                arguments["position_ids"] = torch.arange(4)[None]
            if "shared_kv_states" in accepted:
                arguments["shared_kv_states"] = {}
            attention(**arguments)
    finally:
        for name, original in originals.items():
            setattr(module, name, original)
    return called


@pytest.mark.parametrize("path", FILES)
def test_each_published_file_read_raw_equals_transformers(path: str) -> None:
    raw = load(path)
    if path in REFUSED:
        with pytest.raises(ValueError, match=re.escape(REFUSED[path])):
            pe.read_config(raw)
        return
    if path in REMOTE:
        model_type, warning = REMOTE[path]
        with pytest.warns(UserWarning, match=warning):
            compare(raw, their_config(raw, model_type), path)
    else:
        compare(raw, their_config(raw), path)


#: Raw keys of the families whose configuration classes translate them (small models: the
#: same keys as the published files, with values chosen so that a key read wrongly shows).
TRANSLATED: dict[str, dict[str, Any]] = {
    "Gemma 3: rope_local_base_freq beside rope_theta and linear scaling": {
        "model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 2,
        "num_key_value_heads": 1, "head_dim": 32, "num_hidden_layers": 6,
        "sliding_window_pattern": 3, "rope_theta": 54321.0, "rope_local_base_freq": 12345.0,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0}, "max_position_embeddings": 4096,
    },
    "ModernBERT: global_rope_theta and local_rope_theta": {
        "model_type": "modernbert", "hidden_size": 64, "num_attention_heads": 2,
        "num_hidden_layers": 6, "global_attn_every_n_layers": 3, "global_rope_theta": 160000.0,
        "local_rope_theta": 12345.0, "max_position_embeddings": 8192,
        "rope_scaling": {"rope_type": "linear", "factor": 2.0},
    },
    "OLMo 3: a flat yarn rope_scaling": {
        "model_type": "olmo3", "hidden_size": 64, "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "num_hidden_layers": 8, "rope_theta": 54321.0, "max_position_embeddings": 65536,
        "rope_scaling": {"rope_type": "yarn", "factor": 8.0,
                         "original_max_position_embeddings": 8192},
    },
    "Cohere 2: full-attention layers without RoPE": {
        "model_type": "cohere2", "hidden_size": 64, "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "num_hidden_layers": 8, "sliding_window": 4096, "sliding_window_pattern": 4,
        "rope_theta": 50000.0, "max_position_embeddings": 8192,
    },
    "SmolLM3: no_rope_layers": {
        "model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 2,
        "num_key_value_heads": 2, "num_hidden_layers": 6, "no_rope_layers": [1, 0, 1, 1, 0, 1],
        "rope_theta": 2e6,
        "max_position_embeddings": 8192,
    },
    "StableLM: the class's default quarter of each head": {
        "model_type": "stablelm", "hidden_size": 128, "num_attention_heads": 2,
        "num_key_value_heads": 2, "num_hidden_layers": 2, "rope_theta": 10000.0,
        "max_position_embeddings": 4096,
    },
}  # fmt: skip


@pytest.mark.parametrize("label", TRANSLATED)
def test_keys_that_config_classes_translate_are_read_as_transformers_reads_them(label: str) -> None:
    raw = TRANSLATED[label]
    compare(raw, their_config(raw), label)


def compare(raw: dict[str, Any], text: Any, label: str) -> None:
    """Check every kind of layer pe reads in `raw` against transformers' `text` config."""
    model = pe.read_config(raw)
    path = label
    generator = torch.Generator().manual_seed(0)
    for kind in model.kinds:
        index = kind.layers[0] if kind.layers else None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # keys read elsewhere, lengths: checked elsewhere
            named = None if index is not None or kind.kind == "all" else kind.kind
            ours = RotaryEmbedding.from_config(raw, layer=index, layer_type=named)
        if not kind.rotated:
            assert isinstance(ours, NoRotation)
            for layer in (kind.layers[0], kind.layers[-1]):
                assert not applied(text, layer), (path, kind.kind, layer)
            continue
        assert isinstance(ours, RotaryEmbedding)
        if kind.layers:
            first, last = applied(text, kind.layers[0]), applied(text, kind.layers[-1])
            assert first, (path, kind.kind, kind.layers[0])
            assert last, (path, kind.kind, kind.layers[-1])
            function = first[0]  # the attention's own call (DeepSeek-V3.2's indexer comes after)
        else:
            function = "apply_rotary_pos_emb"
        positions = positions_for(kind)
        q = torch.randn(len(positions), kind.head_dim, generator=generator, dtype=torch.float32)
        expected = theirs(text, kind, q, positions, function).double()
        if ours.query_temperature is not None:  # Ministral 3: queries scaled after RoPE
            scale = modeling(text).get_llama_4_attn_scale(
                positions[None], *ours.query_temperature[:2]
            )
            expected = expected * scale[0, 0].double()
        if kind.rule in ("dynamic", "longrope"):  # transformers: from each call's length
            with pytest.warns(UserWarning, match="depends on the sequence length"):
                short = RotaryEmbedding.from_config(raw, layer=index, layer_type=named)
            head = positions[positions < (kind.trained_length or 0)]
            assert_rotation_close(
                short.rotate(q[None, : len(head)], positions=head)[0],
                theirs(text, kind, q[: len(head)], head, function),
                head,
                short,
                (path, kind.kind, "short"),
            )
            ours = RotaryEmbedding.from_config(
                raw, layer=index, layer_type=named, seq_len=int(positions.max()) + 1
            )
        got = ours(q[None], q[None], q_positions=positions, k_positions=positions)[0][0]
        assert_rotation_close(got, expected, positions, ours, (path, kind.kind))


def assert_rotation_close(
    got: torch.Tensor, expected: torch.Tensor, positions: torch.Tensor, ours: Any, label: Any
) -> None:
    """Equal within transformers' float32 angles: position * frequency rounded once.

    The error grows with the angle: 2**-24 of it, four times over for the products and the
    rounding of q itself, times the largest |q|, the attention factor and temperature.
    """
    angle = positions.double()[:, None] * float(np.max(ours.frequencies))
    size = expected.double().abs().max()
    bound = 4 * 2.0**-24 * (1 + angle) * size
    assert torch.all((got.double() - expected.double()).abs() <= bound), label


def test_the_corpus_is_large_and_every_file_has_its_source() -> None:
    sources = json.loads((CORPUS / "sources.json").read_text(encoding="utf-8"))
    assert sorted(entry["path"] for entry in sources) == FILES
    assert all(entry["source"] and entry["model"] for entry in sources)
    assert len(FILES) >= 40
    assert len({entry["family"] for entry in sources}) >= 25


def _position_like_fields() -> dict[str, set[str]]:
    """Names in transformers' configuration files that look like position settings.

    Read from the source of every ``models/*/configuration_*.py`` of the pinned
    transformers that mentions RoPE: the fields a class declares and the keys it
    takes from ``kwargs``.
    """
    found: dict[str, set[str]] = {}
    models = Path(transformers.__file__).parent / "models"
    for path in sorted(models.glob("*/configuration_*.py")):
        source = path.read_text(encoding="utf-8")
        if not re.search(r"rope|rotary", source):
            continue
        names = set(re.findall(r"^    (\w+): [^=\n]+(?:=|$)", source, re.M))
        names |= set(re.findall(r"kwargs\.(?:get|pop|setdefault)\(\s*[\"'](\w+)[\"']", source))
        for name in names:
            if _POSITIONAL_NAME.search(name):
                found.setdefault(name, set()).add(path.parent.name)
    return found


def test_every_position_key_of_transformers_config_classes_is_decided() -> None:
    found = _position_like_fields()
    assert {"rope_local_base_freq", "global_rope_theta", "no_rope_layers"} <= set(found)
    undecided = {
        name: sorted(families)
        for name, families in found.items()
        if name not in POSITION_KEYS and name not in NOT_POSITIONAL
    }
    assert not undecided, undecided


def test_the_families_table_is_the_pinned_transformers_own() -> None:
    """pe._families was written from the transformers that constraints.txt pins.

    Regenerating it takes 20 s (every configuration class is built), so the suite
    checks the version it was written from and, for the model types of the corpus
    and of pe's own translations, the defaults one by one.
    """
    from pe._config import _TRANSLATIONS
    from pe._families import FAMILIES, TRANSFORMERS_VERSION
    from tools.families import family_of

    assert transformers.__version__ == TRANSFORMERS_VERSION, "run python -m tools.families"
    types = {load(path)["model_type"] for path in FILES} | set(_TRANSLATIONS)
    for model_type in sorted(types & set(FAMILIES)):
        assert FAMILIES[model_type] == family_of(model_type), model_type


REFUSALS: list[tuple[dict[str, Any], dict[str, Any], type[Exception], str]] = [
    ({"head_dim": 64, "rope_fancy_base": 3.0}, {}, ValueError,
     r"\['rope_fancy_base'\].*looks like"),
    ({"model_type": "granite_swa", "head_dim": 64}, {}, ValueError, "'granite_swa'.*per layer"),
    ({"head_dim": 64, "layer_rope_theta": [1e4, 0]}, {}, ValueError, r"\['layer_rope_theta'\]"),
    ({"model_type": "gpt2", "n_embd": 64}, {}, ValueError, "'gpt2'.*no RoPE settings"),
    ({"model_type": "pixtral", "head_dim": 64}, {}, ValueError, "vision encoder"),
    ({"model_type": "deepseek_v4", "head_dim": 64}, {}, ValueError, "last channels"),
    ({"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 2, "alibi": True}, {},
     ValueError, r"\['alibi'\] is true"),
    ({"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 2, "rope_theta": 1e4},
     {}, ValueError, r"\['rope_theta'\].*rotary_emb_base"),
    ({"model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 2,
      "num_hidden_layers": 4}, {}, ValueError, "differ in their positions.*layer="),
    ({"model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 2,
      "num_hidden_layers": 4}, {"layer": 4}, ValueError, r"layer must lie in \[-4, 3\]"),
    ({"model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 2,
      "num_hidden_layers": 4}, {"layer": 3, "layer_type": "sliding_attention"}, ValueError,
     "is of type 'full_attention'"),
    ({"model_type": "smollm3", "hidden_size": 64, "num_attention_heads": 2,
      "num_hidden_layers": 4, "no_rope_layers": [1, 2, 1, 1]}, {}, ValueError,
     r"\['no_rope_layers'\] must be a list of 0 and 1"),
    ({"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 2,
      "rope_scaling": {"rope_type": "dynamic", "factor": 2.0, "alpha": 3.0}}, {}, ValueError,
     r"\['alpha'\]=3.0: Hunyuan"),
    # Llama's attention turns halves whatever rope_interleave says (transformers drops it).
    ({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2,
      "rope_interleave": True}, {}, ValueError,
     r"\['rope_interleave'\] is true, but model type 'llama' does not read"),
    ({"head_dim": 64, "rope_interleave": 1}, {}, TypeError,
     r"\['rope_interleave'\] must be true or false; got 1"),
]  # fmt: skip


@pytest.mark.parametrize(("config", "options", "error", "message"), REFUSALS)
def test_what_pe_does_not_read_is_refused_by_name(
    config: dict[str, Any], options: dict[str, Any], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        RotaryEmbedding.from_config(config, **options)


@pytest.mark.parametrize("interleave", [True, False])
def test_rope_interleave_without_a_model_type_turns_the_pairs_it_names(interleave: bool) -> None:
    """Read as the key says (it was once dropped, leaving halves); checked against pairs
    written here: (2i, 2i + 1) when interleaved, (i, i + d/2) when not."""
    rope = RotaryEmbedding.from_config({"head_dim": 8, "rope_interleave": interleave})
    positions = np.array([0, 1, 5, 40])
    x = torch.randn(1, 1, positions.size, 8, dtype=torch.float64)
    turned = rope.rotate(x, positions=torch.from_numpy(positions)).numpy()[0, 0]
    pairs = [(2 * i, 2 * i + 1) if interleave else (i, i + 4) for i in range(4)]
    expected = x.numpy()[0, 0].copy()
    for i, (a, b) in enumerate(pairs):
        angle = positions * 10000.0 ** (-2 * i / 8)
        first, second = x.numpy()[0, 0, :, a], x.numpy()[0, 0, :, b]
        expected[:, a] = first * np.cos(angle) - second * np.sin(angle)
        expected[:, b] = first * np.sin(angle) + second * np.cos(angle)
    np.testing.assert_allclose(turned, expected, rtol=1e-6, atol=1e-6)
    assert ("layout", "config['rope_interleave']") in pe.read_config(
        {"head_dim": 8, "rope_interleave": interleave}
    ).kinds[0].sources


def test_explain_prints_what_the_reading_holds_and_its_json_form_is_the_same() -> None:
    from pe.__main__ import main

    raw = load("llama4/llama-4-scout-17b-16e-instruct.json")
    facts = pe.explanation(raw)
    nope = [kind for kind in facts["kinds"] if not kind["rotated"]]
    assert [kind["layers"] for kind in nope] == [list(range(3, 48, 4))]
    assert nope[0]["query_temperature"] == {"scale": 0.1, "step": 8192, "shift": 1}
    text = pe.explain(raw)
    assert "12 layers (3, 7, 11" in text
    assert "no RoPE" in text
    assert json.loads(pe.explain(raw, as_json=True)) == facts
    with pytest.raises(TypeError, match="as_json must be True or False"):
        pe.explain(raw, as_json="yes")  # type: ignore[arg-type]
    assert main(["explain", str(CORPUS / "llama4/llama-4-scout-17b-16e-instruct.json")]) == 0


def test_the_command_line_names_a_file_it_refuses_and_exits_with_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pe.__main__ import main

    refused = tmp_path / "refused.json"
    refused.write_text(json.dumps({"head_dim": 64, "rope_fancy_base": 3.0}))
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"head_dim": 64, "rope_theta": 5e5}))
    assert main(["explain", str(good), str(refused), "--json"]) == 1
    out, err = capsys.readouterr()
    assert "rope_fancy_base" in err
    assert json.loads(out)[0]["kinds"][0]["base"] == 500000


def test_a_transformers_config_object_is_read_as_its_dict() -> None:
    raw = load("olmo/olmo-3.1-32b-instruct.json")
    config = their_config(raw)
    assert pe.explain(config) == pe.explain(config.to_dict())
    full = pe.read_config(config).of_type("full_attention")
    assert (full.rule, full.base) == ("yarn", raw["rope_theta"])


def test_sizes_under_a_family_s_own_names_are_read() -> None:
    """GPT-J's config.json says n_embd and n_head (its class maps them to hidden_size and
    num_attention_heads); its model rotates the first rotary_dim dimensions of each head in
    interleaved pairs at base 10000 (transformers, models/gptj/modeling_gptj.py)."""
    gptj = {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "rotary_dim": 64,
            "n_positions": 2048}  # fmt: skip
    kind = pe.read_config(gptj).of_type(None)
    assert (kind.head_dim, kind.layout, kind.base) == (256, "interleaved", 10000.0)
    rope = RotaryEmbedding.from_config(gptj)
    assert (rope.rotary_dim, rope.layout) == (64, "interleaved")
    gptj_module = pytest.importorskip("transformers.models.gptj.modeling_gptj")
    table = gptj_module.create_sinusoidal_positions(2048, 64).double()
    sin, cos = table[:, :32], table[:, 32:]
    ours_cos, ours_sin = rope.table(2048, dtype=torch.float64)
    torch.testing.assert_close(ours_cos, cos, atol=2e-4, rtol=0)  # theirs: float32 angles
    torch.testing.assert_close(ours_sin, sin, atol=2e-4, rtol=0)
