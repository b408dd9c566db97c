import pytest
import torch

from pe.nn.functional import position_ids


def test_left_and_right_padding() -> None:
    ids = torch.tensor([[0, 0, 0, 7, 8], [7, 8, 9, 0, 0], [7, 8, 9, 10, 11]])
    assert position_ids(ids, pad_id=0).tolist() == [
        [0, 0, 0, 0, 1],
        [0, 1, 2, 0, 0],
        [0, 1, 2, 3, 4],
    ]


def test_start_and_pad_value() -> None:
    ids = torch.tensor([[1, 1, 5, 6], [5, 6, 7, 1]])
    got = position_ids(ids, pad_id=1, start=2, pad_value=1)
    assert got.tolist() == [[1, 1, 2, 3], [2, 3, 4, 1]]


def test_real_tokens_count_consecutively_whatever_the_padding() -> None:
    torch.manual_seed(0)
    for _ in range(20):
        ids = torch.randint(1, 50, (4, 12))
        ids[torch.rand(4, 12) < 0.3] = 0
        got = position_ids(ids, pad_id=0, start=5, pad_value=-7)
        for row, positions in zip(ids, got, strict=True):
            real = row != 0
            assert positions[real].tolist() == list(range(5, 5 + int(real.sum())))
            assert torch.all(positions[~real] == -7)


def test_any_leading_shape() -> None:
    ids = torch.tensor([[[0, 3, 4]], [[3, 4, 0]]])
    assert position_ids(ids, pad_id=0).shape == (2, 1, 3)


def test_errors() -> None:
    with pytest.raises(TypeError, match="input_ids must be an integer tensor"):
        position_ids(torch.zeros(2, 3), pad_id=0)
    with pytest.raises(TypeError, match="pad_id must be an integer"):
        position_ids(torch.zeros(2, 3, dtype=torch.long), pad_id=0.5)  # type: ignore[arg-type]  # wrong on purpose


def test_pad_id_outside_the_dtype_is_refused() -> None:
    ids = torch.tensor([[1, 2, 255]], dtype=torch.uint8)
    # 257 would wrap to 1 in uint8 and mark the first real token as padding
    with pytest.raises(
        ValueError, match=r"pad_id must be a value input_ids can hold: 0\.\.255 .*got 257"
    ):
        position_ids(ids, pad_id=257)
    with pytest.raises(ValueError, match=r"pad_id .* got -1"):
        position_ids(ids, pad_id=-1)
    assert position_ids(ids, pad_id=255).tolist() == [[0, 1, 0]]


def test_pad_value_out_of_range_is_a_value_error() -> None:
    ids = torch.tensor([[0, 5, 6]])
    with pytest.raises(ValueError, match=r"pad_value must lie in .*got 1180591620717411303424"):
        position_ids(ids, pad_id=0, pad_value=2**70)


def test_start_must_leave_room_for_the_sequence() -> None:
    ids = torch.tensor([[5, 6, 7]])
    assert position_ids(ids, pad_id=0, start=2**31 - 3).tolist() == [
        [2**31 - 3, 2**31 - 2, 2**31 - 1]
    ]
    with pytest.raises(ValueError, match=r"start \+ seq - 1 = 2147483648 is past"):
        position_ids(ids, pad_id=0, start=2**31 - 2)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.uint64])
def test_ids_that_long_cannot_read_are_refused(dtype: torch.dtype) -> None:
    with pytest.raises(TypeError, match=f"input_ids must be .*{dtype}"):
        position_ids(torch.ones(2, 3, dtype=dtype), pad_id=0)
