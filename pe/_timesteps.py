r"""The diffusion timestep embedding: the 2017 sinusoid of a continuous time.

A diffusion model tells its network how noisy the input is with one number
per sample, the timestep $t$ (an integer step ``0 .. 999``, or a noise level
$\sigma \in [0, 1]$ scaled by 1000). Every major codebase embeds it with the
same sinusoid as the Transformer's positions, with four knobs that
diffusers' ``get_timestep_embedding`` names:

$$
\omega_i = P^{-i/(h - s)}, \quad i = 0, \dots, h - 1, \qquad h = \lfloor D / 2 \rfloor,
$$

$$
e(t) = \bigl[\sin(c\,t\,\omega_0), \dots, \sin(c\,t\,\omega_{h-1}),\;
              \cos(c\,t\,\omega_0), \dots, \cos(c\,t\,\omega_{h-1})\bigr],
$$

with $P$ the ``max_period``, $s$ the ``downscale_freq_shift``, $c$ the
``scale``; ``flip_sin_to_cos`` puts the cosines first, and an odd width $D$
gets one zero column at the end. The angles are float64 and each value is
rounded once to the output dtype, so a float32 embedding is within half a
float32 unit of the exact value, where the libraries' float32 angles lose
about ``|angle| * 6e-8``.

Each entry of `timestep_presets` names the settings of one published
pipeline and where each setting was read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from pe._mapping import NamedMapping
from pe._validation import (
    MAX_D_MODEL,
    _describe,
    check_base,
    check_dtype,
    check_flag,
    check_real,
    check_size,
    is_integer,
)

__all__ = [
    "MAX_TIMESTEP",
    "TimestepPreset",
    "check_timestep_settings",
    "timestep_embedding",
    "timestep_frequencies",
    "timestep_presets",
]

#: Largest accepted ``abs(timestep * scale)``. Pipelines use at most a few
#: thousand; beyond ``2**31`` float64 angles would still be exact, but the
#: value is a mistake (a timestep in the wrong unit), not a time.
MAX_TIMESTEP = 2.0**31


def check_timestep_settings(
    dim: Any, flip_sin_to_cos: Any, downscale_freq_shift: Any, scale: Any, max_period: Any
) -> tuple[int, bool, float, float, float]:
    """Return the settings in canonical form, or raise naming the one that is wrong.

    `dim` is an integer from 2 to `MAX_D_MODEL` (odd allowed);
    ``dim // 2 - downscale_freq_shift`` must be positive, since it divides the
    exponent. Real settings past float64 (``10**400``) are a `ValueError`.
    """
    if not is_integer(dim):
        raise TypeError(f"dim must be an integer >= 2; got {_describe(dim)}")
    if int(dim) < 2:
        raise ValueError(f"dim must be an integer >= 2 (one sin and one cos); got {int(dim)}")
    if int(dim) > MAX_D_MODEL:
        raise ValueError(f"dim must be at most {MAX_D_MODEL:,} (2**24); got {int(dim):,}")
    flip = check_flag(flip_sin_to_cos, name="flip_sin_to_cos")
    shift = check_real(downscale_freq_shift, name="downscale_freq_shift")
    half = int(dim) // 2
    if half - shift <= 0:
        raise ValueError(
            f"downscale_freq_shift must be below dim // 2 = {half} (the exponent divides by "
            f"dim // 2 - downscale_freq_shift); got {shift!r}. diffusers would return NaN here"
        )
    return (
        int(dim),
        flip,
        shift,
        check_real(scale, name="scale", positive=True),
        check_base(max_period, name="max_period"),
    )


def timestep_frequencies(
    dim: int, *, downscale_freq_shift: float = 1.0, max_period: float = 10000.0
) -> NDArray[np.float64]:
    r"""Angular frequencies $\omega_i = P^{-i/(h - s)}$ of a timestep embedding, float64.

    Parameters
    ----------
    dim : int
        Width of the embedding, an integer >= 2; ``h = dim // 2`` frequencies.
    downscale_freq_shift : float, default 1.0
        The shift $s$: ``1`` divides the exponent by ``h - 1`` (the slowest
        frequency is exactly ``1 / max_period``, as in the DDPM code), ``0``
        by ``h`` (as in the 2017 paper and Stable Diffusion).
    max_period : float, default 10000.0
        $P$, a finite real number above 1.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(dim // 2,)`` falling from 1.

    Raises
    ------
    TypeError, ValueError
        If a setting has the wrong type or value (see `timestep_embedding`).

    Examples
    --------
    >>> import pe
    >>> periods = 1 / pe.timestep_frequencies(8, downscale_freq_shift=1)  # 10000 ** (i / 3)
    >>> [round(float(p), 2) for p in periods]
    [1.0, 21.54, 464.16, 10000.0]
    >>> pe.timestep_frequencies(8, downscale_freq_shift=0)  # 10000 ** (-i / 4)
    array([1.   , 0.1  , 0.01 , 0.001])
    """
    dim, _, shift, _, period = check_timestep_settings(
        dim, False, downscale_freq_shift, 1.0, max_period
    )
    return _frequencies(dim, shift, period)


def _frequencies(dim: int, shift: float, period: float) -> NDArray[np.float64]:
    half = dim // 2
    exponents = np.arange(half, dtype=np.float64) / (half - shift)  # i / (h - s)
    frequencies: NDArray[np.float64] = np.power(period, -exponents)
    return frequencies


def check_timesteps(
    timesteps: Any, scale: float, *, row: int, name: str = "timesteps"
) -> NDArray[np.float64]:
    """Return real `timesteps` as a float64 array (a scalar becomes shape ``()``).

    The embedding of shape ``timesteps.shape + (row,)`` is sized (`check_size`)
    before any value is converted or checked.
    """
    if isinstance(timesteps, (bool, np.bool_, str, bytes)) or timesteps is None:
        raise TypeError(
            f"{name} must be real numbers (a scalar or an array); got {_describe(timesteps)}"
        )
    try:
        array = np.asarray(timesteps)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"{name} must be real numbers; could not read {_describe(timesteps)} ({error})"
        ) from None
    check_size(
        (*array.shape, row),
        name=f"the embedding of {name} of shape {array.shape} with dim {row}",
        hint="Embed fewer timesteps at a time",
    )
    if array.dtype.kind == "O" and array.size and all(is_integer(t) for t in array.flat):
        # Python integers past int64: numpy keeps them as objects.
        worst = max(array.flat, key=lambda t: abs(int(t)))
        raise ValueError(
            f"{name} times scale must lie within +-2**31; got a timestep of {_describe(worst)}"
        )
    if array.dtype.kind not in "iuf":
        raise TypeError(
            f"{name} must hold real numbers (integers or floats); got dtype {array.dtype}"
        )
    values = array.astype(np.float64)
    if values.size:
        if not bool(np.isfinite(values).all()):
            raise ValueError(f"{name} must be finite; got {values[~np.isfinite(values)].flat[0]!r}")
        worst = float(np.abs(values).max()) * scale
        if worst > MAX_TIMESTEP:
            raise ValueError(
                f"{name} times scale must lie within +-2**31; got {worst:.6g}. A timestep is "
                "a step index (0 .. 999) or a noise level times 1000"
            )
    return values


def timestep_embedding(
    timesteps: Any,
    dim: int,
    *,
    flip_sin_to_cos: bool = False,
    downscale_freq_shift: float = 1.0,
    scale: float = 1.0,
    max_period: float = 10000.0,
    dtype: Any = np.float32,
) -> NDArray[np.floating[Any]]:
    r"""Embed diffusion timesteps with the sinusoid, as diffusers' ``get_timestep_embedding``.

    The defaults are diffusers' (and the original DDPM code's): sines first,
    shift 1, scale 1, period 10000. `timestep_presets` holds the settings of
    real pipelines.

    Parameters
    ----------
    timesteps : float or array_like of float
        Real timesteps of any shape; fractional values are allowed (flow
        models feed ``1000 * sigma``).
    dim : int
        Width $D$ of the embedding, an integer from 2 to ``2**24``. An odd width
        gets a zero last column.
    flip_sin_to_cos : bool, default False
        False: ``[sin, cos]`` halves; True: ``[cos, sin]``.
    downscale_freq_shift : float, default 1.0
        The shift $s$ in $\omega_i = P^{-i/(h - s)}$, ``h = dim // 2``; it
        must be below ``h``.
    scale : float, default 1.0
        Multiplies every angle; a finite real number > 0.
    max_period : float, default 10000.0
        $P$: with shift 1 the slowest pair turns at rate $1/P$, so it repeats
        every $2\pi P$ steps; a finite real number above 1.
    dtype : numpy dtype, default numpy.float32
        ``float16``, ``float32`` or ``float64``; angles and sines are float64,
        rounded to `dtype` once.

    Returns
    -------
    numpy.ndarray
        Shape ``timesteps.shape + (dim,)``, dtype `dtype`.

    Raises
    ------
    TypeError
        If `timesteps` holds non-real values (booleans, strings, complex), or a
        setting has the wrong type.
    ValueError
        If a timestep is not finite or too large, `dim` is below 2 or above
        ``2**24``, ``dim // 2 - downscale_freq_shift`` is not positive, or the
        embedding would hold more than ``2**31`` values (checked before any is
        built).

    Notes
    -----
    The entry for angle $a = c\,t\,\omega_i$ is $\sin a$ or $\cos a$ computed
    in float64, so a float32 result is within half a float32 unit (``2**-25``
    next to 1) of the exact value for every timestep pipelines use.

    Examples
    --------
    >>> import pe
    >>> pe.timestep_embedding([0.0, 1.0], dim=4, max_period=100).round(4)
    array([[0.    , 0.    , 1.    , 1.    ],
           [0.8415, 0.01  , 0.5403, 1.    ]], dtype=float32)

    Stable Diffusion's order and shift: cosines first, exponent over ``h``:

    >>> pe.timestep_embedding(1.0, dim=4, flip_sin_to_cos=True, downscale_freq_shift=0).round(4)
    array([0.5403, 1.    , 0.8415, 0.01  ], dtype=float32)
    """
    dim, flip, shift, scale, period = check_timestep_settings(
        dim, flip_sin_to_cos, downscale_freq_shift, scale, max_period
    )
    out_dtype = check_dtype(dtype)
    values = check_timesteps(timesteps, scale, row=dim)
    return embed(values, dim, flip, shift, scale, period, out_dtype)


def embed(
    values: NDArray[np.float64],
    dim: int,
    flip: bool,
    shift: float,
    scale: float,
    period: float,
    dtype: np.dtype[Any],
) -> NDArray[np.floating[Any]]:
    """`timestep_embedding` for checked arguments (float64 `values`, canonical settings)."""
    half = dim // 2
    angles = (values[..., np.newaxis] * _frequencies(dim, shift, period)) * scale
    out = np.zeros((*values.shape, dim), dtype)
    first, second = (np.cos, np.sin) if flip else (np.sin, np.cos)
    out[..., :half] = first(angles)  # float64, rounded once on assignment
    out[..., half : 2 * half] = second(angles)
    return out


@dataclass(frozen=True)
class TimestepPreset:
    """The timestep-embedding settings of one published pipeline, and where each was read.

    Attributes
    ----------
    name : str
        Key in `pe.timestep_presets`.
    title : str
        The pipeline or model.
    dim, flip_sin_to_cos, downscale_freq_shift, scale, max_period
        The arguments of `timestep_embedding` that reproduce it.
    timesteps : str
        What the pipeline feeds in (integer steps, or ``1000 * sigma``).
    sources : tuple of (str, str, str, str)
        ``(setting, repository, file, key)``: where each setting was read, in
        the model's original code and in diffusers.
    diffusers : str
        The diffusers class and attribute that computes it; the tests compare
        this preset with it.

    Examples
    --------
    >>> import pe
    >>> sd = pe.timestep_presets["stable-diffusion-1"]
    >>> sd.dim, sd.flip_sin_to_cos, sd.downscale_freq_shift
    (320, True, 0.0)
    >>> sd.embedding([999]).shape
    (1, 320)
    """

    name: str
    title: str
    dim: int
    flip_sin_to_cos: bool
    downscale_freq_shift: float
    scale: float
    max_period: float
    timesteps: str
    sources: tuple[tuple[str, str, str, str], ...]
    diffusers: str

    def embedding(self, timesteps: Any, *, dtype: Any = np.float32) -> NDArray[np.floating[Any]]:
        """Return `timestep_embedding` of `timesteps` at this preset's settings."""
        return timestep_embedding(
            timesteps,
            self.dim,
            flip_sin_to_cos=self.flip_sin_to_cos,
            downscale_freq_shift=self.downscale_freq_shift,
            scale=self.scale,
            max_period=self.max_period,
            dtype=dtype,
        )

    def settings(self) -> dict[str, Any]:
        """Return the keyword arguments of `timestep_embedding` (and diffusers) as a dict."""
        return {
            "flip_sin_to_cos": self.flip_sin_to_cos,
            "downscale_freq_shift": self.downscale_freq_shift,
            "scale": self.scale,
            "max_period": self.max_period,
        }


_LDM = "ldm/modules/diffusionmodules/util.py"
_SD_UNET = (
    (
        "flip_sin_to_cos",
        "huggingface/diffusers",
        "src/diffusers/models/unets/unet_2d_condition.py",
        "UNet2DConditionModel(flip_sin_to_cos=True)",
    ),
    (
        "downscale_freq_shift",
        "huggingface/diffusers",
        "src/diffusers/models/unets/unet_2d_condition.py",
        "UNet2DConditionModel(freq_shift=0)",
    ),
)


def _ldm(repo: str, util: str, config: str, key: str) -> tuple[tuple[str, str, str, str], ...]:
    """Return where a latent-diffusion UNet sets each value (config, util.py, diffusers)."""
    return (
        ("dim", repo, config, key),
        (
            "flip_sin_to_cos",
            repo,
            util,
            "timestep_embedding: torch.cat([torch.cos(args), torch.sin(args)])",
        ),
        (
            "downscale_freq_shift",
            repo,
            util,
            "timestep_embedding: -math.log(max_period) * arange(half) / half",
        ),
        ("max_period", repo, util, "timestep_embedding(max_period=10000)"),
        *_SD_UNET,
    )


_PRESETS = (
    TimestepPreset(
        name="ddpm",
        title="DDPM (Ho et al. 2020), CIFAR-10 model",
        dim=128,
        flip_sin_to_cos=False,
        downscale_freq_shift=1.0,
        scale=1.0,
        max_period=10000.0,
        timesteps="integer steps 0 .. 999",
        sources=(
            ("dim", "hojonathanho/diffusion", "scripts/run_cifar.py", "unet.model(ch=128)"),
            (
                "flip_sin_to_cos",
                "hojonathanho/diffusion",
                "diffusion_tf/nn.py",
                "get_timestep_embedding: tf.concat([tf.sin(emb), tf.cos(emb)], axis=1)",
            ),
            (
                "downscale_freq_shift",
                "hojonathanho/diffusion",
                "diffusion_tf/nn.py",
                "get_timestep_embedding: math.log(10000) / (half_dim - 1)",
            ),
            (
                "max_period",
                "hojonathanho/diffusion",
                "diffusion_tf/nn.py",
                "get_timestep_embedding: math.log(10000)",
            ),
        ),
        diffusers="diffusers.models.embeddings.get_timestep_embedding (its defaults)",
    ),
    TimestepPreset(
        name="stable-diffusion-1",
        title="Stable Diffusion 1.x UNet",
        dim=320,
        flip_sin_to_cos=True,
        downscale_freq_shift=0.0,
        scale=1.0,
        max_period=10000.0,
        timesteps="integer steps 0 .. 999",
        sources=_ldm(
            "CompVis/stable-diffusion",
            _LDM,
            "configs/stable-diffusion/v1-inference.yaml",
            "model.params.unet_config.params.model_channels: 320",
        ),
        diffusers="UNet2DConditionModel.time_proj (Timesteps)",
    ),
    TimestepPreset(
        name="stable-diffusion-2",
        title="Stable Diffusion 2.x UNet",
        dim=320,
        flip_sin_to_cos=True,
        downscale_freq_shift=0.0,
        scale=1.0,
        max_period=10000.0,
        timesteps="integer steps 0 .. 999",
        sources=_ldm(
            "Stability-AI/stablediffusion",
            _LDM,
            "configs/stable-diffusion/v2-inference.yaml",
            "model.params.unet_config.params.model_channels: 320",
        ),
        diffusers="UNet2DConditionModel.time_proj (Timesteps)",
    ),
    TimestepPreset(
        name="sdxl",
        title="SDXL base UNet (the timestep)",
        dim=320,
        flip_sin_to_cos=True,
        downscale_freq_shift=0.0,
        scale=1.0,
        max_period=10000.0,
        timesteps="integer steps 0 .. 999",
        sources=_ldm(
            "Stability-AI/generative-models",
            "sgm/modules/diffusionmodules/util.py",
            "configs/inference/sd_xl_base.yaml",
            "model.params.network_config.params.model_channels: 320",
        ),
        diffusers="UNet2DConditionModel.time_proj (Timesteps)",
    ),
    TimestepPreset(
        name="sdxl-size",
        title="SDXL base UNet (each size and crop number)",
        dim=256,
        flip_sin_to_cos=True,
        downscale_freq_shift=0.0,
        scale=1.0,
        max_period=10000.0,
        timesteps="pixel sizes and crop offsets (e.g. 1024, 0)",
        sources=(
            (
                "dim",
                "Stability-AI/generative-models",
                "configs/inference/sd_xl_base.yaml",
                "conditioner_config ... ConcatTimestepEmbedderND: outdim: 256",
            ),
            (
                "flip_sin_to_cos",
                "Stability-AI/generative-models",
                "sgm/modules/diffusionmodules/util.py",
                "timestep_embedding: torch.cat([torch.cos(args), torch.sin(args)])",
            ),
            (
                "downscale_freq_shift",
                "Stability-AI/generative-models",
                "sgm/modules/diffusionmodules/util.py",
                "timestep_embedding: -math.log(max_period) * arange(half) / half",
            ),
            (
                "dim",
                "huggingface/diffusers",
                "src/diffusers/models/unets/unet_2d_condition.py",
                "add_time_proj = Timesteps(addition_time_embed_dim, ...); SDXL: 256",
            ),
        ),
        diffusers="UNet2DConditionModel.add_time_proj (Timesteps)",
    ),
    TimestepPreset(
        name="flux",
        title="FLUX.1 transformer (flow matching)",
        dim=256,
        flip_sin_to_cos=True,
        downscale_freq_shift=0.0,
        scale=1.0,
        max_period=10000.0,
        timesteps="1000 * t for t in [0, 1] (and the guidance scale times 1000)",
        sources=(
            (
                "dim",
                "black-forest-labs/flux",
                "src/flux/model.py",
                "timestep_embedding(timesteps, 256)",
            ),
            (
                "flip_sin_to_cos",
                "black-forest-labs/flux",
                "src/flux/modules/layers.py",
                "timestep_embedding: torch.cat([torch.cos(args), torch.sin(args)])",
            ),
            (
                "downscale_freq_shift",
                "black-forest-labs/flux",
                "src/flux/modules/layers.py",
                "timestep_embedding: -math.log(max_period) * arange(half) / half",
            ),
            (
                "timesteps",
                "black-forest-labs/flux",
                "src/flux/modules/layers.py",
                "timestep_embedding(time_factor=1000.0)",
            ),
            (
                "dim",
                "huggingface/diffusers",
                "src/diffusers/models/embeddings.py",
                "CombinedTimestepGuidanceTextProjEmbeddings: Timesteps(num_channels=256, "
                "flip_sin_to_cos=True, downscale_freq_shift=0)",
            ),
            (
                "timesteps",
                "huggingface/diffusers",
                "src/diffusers/models/transformers/transformer_flux.py",
                "FluxTransformer2DModel.forward: timestep * 1000",
            ),
        ),
        diffusers="CombinedTimestepGuidanceTextProjEmbeddings.time_proj (Timesteps)",
    ),
    TimestepPreset(
        name="wan",
        title="Wan 2.1 / 2.2 video transformer",
        dim=256,
        flip_sin_to_cos=True,
        downscale_freq_shift=0.0,
        scale=1.0,
        max_period=10000.0,
        timesteps="integer steps 0 .. 999 (the scheduler's 1000 * sigma)",
        sources=(
            ("dim", "Wan-Video/Wan2.1", "wan/modules/model.py", "WanModel(freq_dim=256)"),
            (
                "flip_sin_to_cos",
                "Wan-Video/Wan2.1",
                "wan/modules/model.py",
                "sinusoidal_embedding_1d: torch.cat([torch.cos(sinusoid), torch.sin(sinusoid)])",
            ),
            (
                "downscale_freq_shift",
                "Wan-Video/Wan2.1",
                "wan/modules/model.py",
                "sinusoidal_embedding_1d: torch.pow(10000, -torch.arange(half).div(half))",
            ),
            (
                "dim",
                "huggingface/diffusers",
                "src/diffusers/models/transformers/transformer_wan.py",
                "WanTransformer3DModel(freq_dim=256)",
            ),
            (
                "flip_sin_to_cos",
                "huggingface/diffusers",
                "src/diffusers/models/transformers/transformer_wan.py",
                "WanTimeTextImageEmbedding: Timesteps(num_channels=time_freq_dim, "
                "flip_sin_to_cos=True, downscale_freq_shift=0)",
            ),
        ),
        diffusers="WanTimeTextImageEmbedding.timesteps_proj (Timesteps)",
    ),
)

#: The named presets, by name: a read-only mapping of `TimestepPreset`.
timestep_presets: Mapping[str, TimestepPreset] = NamedMapping(
    {p.name: p for p in _PRESETS},
    what="timestep preset",
    home=("pe._timesteps", "timestep_presets"),
)
