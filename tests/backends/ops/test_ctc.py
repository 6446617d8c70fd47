"""CTC ops (``backends/ops/ctc.py``): ``ctc_loss`` against Keras 3.15's values and gradients
(repeated labels, different target and output lengths, another blank, an empty target, an
impossible target), finite-difference gradients in the op harness on every engine, the
greedy ``ctc_decode`` against Keras, and bad arguments.

The expected numbers were computed once with Keras 3.15.1 (torch backend)::

    KERAS_BACKEND=torch /work/kvenv/bin/python -c '
    import numpy as np, keras, torch
    logits = (2 * np.sin(0.7 * np.arange(120.0)) + np.cos(1.3 * np.arange(120.0))
              ).reshape(4, 6, 5).astype("float32")
    target = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0], [2, 3, 4]], dtype="int32")
    tl, ol = np.array([3, 2, 1, 3]), np.array([6, 5, 3, 4])
    print(keras.ops.ctc_loss(target, logits, tl, ol))                  # LOSSES
    print(keras.ops.ctc_loss(target, logits, tl, ol, mask_index=4))    # LOSSES_BLANK_4
    print(keras.ops.ctc_loss(np.array([[1, 1, 1], [0, 0, 0], [2, 2, 0]]),
                             logits[:3, :4], np.array([3, 0, 2]),
                             np.array([4, 4, 3])))                     # EDGE_LOSSES
    z = torch.tensor(logits.astype("float64"), requires_grad=True)
    (keras.ops.ctc_loss(target, z, tl, ol)
     * torch.tensor([0.5, 1.0, 2.0, -1.5], dtype=torch.float64)).sum().backward()
    print(np.round(z.grad.numpy(), 10))                                # GRADIENT
    paths = np.array([[1, 1, 0, 1, 2, 2, 0], [3, 0, 0, 3, 3, 1, 1], [2, 2, 2, 2, 0, 3, 3]])
    x = (np.eye(4)[paths] * 3 + 0.1 * np.cos(np.arange(84.0)).reshape(3, 7, 4)
         ).astype("float32")
    for kw in [{}, {"merge_repeated": False}, {"mask_index": 2}]:
        print(keras.ops.ctc_decode(x, np.array([7, 6, 4]), **kw))      # DECODED, SCORES
    '
"""

import numpy as np
import pytest

import lamina
from lamina import ops

LOGITS = (2 * np.sin(0.7 * np.arange(120.0))
          + np.cos(1.3 * np.arange(120.0))).reshape(4, 6, 5).astype("float32")
TARGET = np.array([[1, 2, 2], [3, 1, 0], [4, 0, 0], [2, 3, 4]], dtype="int32")
TARGET_LENGTH = np.array([3, 2, 1, 3], dtype="int32")
OUTPUT_LENGTH = np.array([6, 5, 3, 4], dtype="int32")
LOSSES = [10.768301010131836, 6.056035995483398, 5.7376389503479, 4.589291572570801]
LOSSES_BLANK_4 = [7.588301181793213, 6.715046405792236, 4.400012493133545,
                  4.995152950286865]
EDGE_TARGET = np.array([[1, 1, 1], [0, 0, 0], [2, 2, 0]])
EDGE_TARGET_LENGTH, EDGE_OUTPUT_LENGTH = np.array([3, 0, 2]), np.array([4, 4, 3])
EDGE_LOSSES = [np.inf, 8.77560806274414, 5.834705352783203]
GRADIENT = np.array([
    [[-0.0086083533, -0.263268888, 0.0931894854, 0.0831886232, 0.0954991281],
     [-0.1954495013, -0.0670303926, -0.0269284714, 0.0218579806, 0.267550379],
     [0.01941167, 0.0745443776, -0.1539671421, 0.0330708958, 0.026940193],
     [-0.1696135104, 0.0044451184, -0.3080686629, 0.0415444076, 0.4316926599],
     [-0.1139511392, 0.0832163766, 0.0054050074, 0.0132284444, 0.012101315],
     [-0.0030999228, 0.0028005969, -0.483376056, 0.0993176326, 0.3843577802]],
    [[-0.1519318819, 0.0878284872, 0.0254876539, -0.0057038218, 0.0443195626],
     [-0.0166746415, 0.0144273341, 0.0763161704, -0.5061154366, 0.4320465922],
     [-0.061142657, -0.0226572827, 0.0412889384, -0.2107684761, 0.2532794774],
     [-0.0610221848, -0.6247606874, 0.2551369369, 0.3009381294, 0.1297078431],
     [-0.4957568944, -0.4110044241, 0.047090847, 0.262996316, 0.5966740847],
     [0.0] * 5],
    [[-0.4082414806, 0.0166359246, 0.1244389117, 0.7842158079, -0.5170491338],
     [-0.1133872047, 0.5764410496, 0.6100119352, 0.2024574578, -1.2755233049],
     [-0.300029397, 0.0262954738, 0.3220833838, 1.0812183619, -1.1295677423],
     [0.0] * 5, [0.0] * 5, [0.0] * 5],
    [[-0.0211804025, -0.3341161311, 0.6012268662, -0.2211279571, -0.0248023979],
     [-0.0290820096, -0.2524513304, -0.0432090163, 0.7876898646, -0.4629475176],
     [0.6384882331, -0.7999884486, -0.4889771342, 0.6224453449, 0.0280319992],
     [-0.0464370847, -0.1459594071, -0.2776429057, -0.3218483925, 0.7918877006],
     [0.0] * 5, [0.0] * 5]])
PATHS = np.array([[1, 1, 0, 1, 2, 2, 0], [3, 0, 0, 3, 3, 1, 1], [2, 2, 2, 2, 0, 3, 3]])
DECODE_INPUTS = (np.eye(4)[PATHS] * 3
                 + 0.1 * np.cos(np.arange(84.0)).reshape(3, 7, 4)).astype("float32")
SCORES = [[-21.167043685913086], [-18.1484375], [-12.042634963989258]]
DECODED = {
    "default": ({}, [[1, 1, 2, -1, -1, -1, -1], [3, 3, 1, -1, -1, -1, -1],
                     [2, -1, -1, -1, -1, -1, -1]]),
    "no_merge": ({"merge_repeated": False}, [[1, 1, 1, 2, 2, -1, -1],
                                             [3, 3, 3, 1, -1, -1, -1],
                                             [2, 2, 2, 2, -1, -1, -1]]),
    "blank_2": ({"mask_index": 2}, [[1, 0, 1, 0, -1, -1, -1], [3, 0, 3, 1, -1, -1, -1],
                                    [-1, -1, -1, -1, -1, -1, -1]]),
}


def keras_values(values):
    """A harness reference returning Keras' recorded ``values`` whatever the inputs."""
    return lambda *inputs, **kwargs: np.array(values)


@pytest.mark.parametrize("mask_index, expected", [(0, LOSSES), (4, LOSSES_BLANK_4)],
                         ids=["blank_0", "blank_4"])
def test_ctc_loss_matches_keras_and_finite_differences(check_op, mask_index, expected):
    check_op(ops.ctc_loss, [TARGET, LOGITS, TARGET_LENGTH, OUTPUT_LENGTH],
             reference=keras_values(expected), kwargs={"mask_index": mask_index},
             rtol=1e-5, atol=1e-5)


def test_ctc_loss_empty_target_and_repeats_need_a_blank(check_op):
    # Row 0 of the edge case cannot be aligned (1, 1, 1 needs 5 frames): see below.
    check_op(ops.ctc_loss, [EDGE_TARGET[1:], LOGITS[1:3, :4], EDGE_TARGET_LENGTH[1:],
                            EDGE_OUTPUT_LENGTH[1:]],
             reference=keras_values(EDGE_LOSSES[1:]), rtol=1e-5, atol=1e-5)


def test_ctc_loss_of_an_impossible_target_is_inf_with_zero_gradient(engine):
    logits = lamina.Variable(LOGITS[:3, :4])
    losses = ops.ctc_loss(EDGE_TARGET, logits, EDGE_TARGET_LENGTH, EDGE_OUTPUT_LENGTH)
    np.testing.assert_allclose(losses.numpy(), EDGE_LOSSES, rtol=1e-6)
    (gradient,) = lamina.grad(ops.sum(losses), [logits])
    gradient = np.asarray(gradient)
    assert np.isfinite(gradient).all() and (gradient[0] == 0).all()
    assert np.abs(gradient[1:]).max() > 0.1


def test_ctc_loss_gradient_matches_keras(engine):
    logits = lamina.Variable(LOGITS.astype("float64"))
    losses = ops.ctc_loss(TARGET, logits, TARGET_LENGTH, OUTPUT_LENGTH)
    assert losses.dtype == np.float64
    weights = np.array([0.5, 1.0, 2.0, -1.5])
    (gradient,) = lamina.grad(ops.sum(losses * weights), [logits])
    # Keras' torch backend computes in float32: agreement to float32 precision
    np.testing.assert_allclose(np.asarray(gradient), GRADIENT, atol=1e-6)


def test_ctc_loss_is_float32_for_float32_and_narrower_logits(engine):
    for dtype in ("float32", "float16"):
        losses = ops.ctc_loss(TARGET, LOGITS.astype(dtype), TARGET_LENGTH, OUTPUT_LENGTH)
        assert losses.dtype == np.float32
    np.testing.assert_allclose(losses.numpy(), LOSSES, rtol=2e-3)


@pytest.mark.parametrize("case", sorted(DECODED))
def test_ctc_decode_greedy_matches_keras(engine, case):
    kwargs, expected = DECODED[case]
    decoded, scores = ops.ctc_decode(DECODE_INPUTS, np.array([7, 6, 4]), **kwargs)
    assert decoded.dtype == np.int32 and decoded.shape == (1, 3, 7)
    np.testing.assert_array_equal(decoded.numpy()[0], expected)
    np.testing.assert_allclose(scores.numpy(), SCORES, rtol=1e-6)


def test_ctc_decode_strategies(engine):
    with pytest.raises(NotImplementedError, match="beam_search"):
        ops.ctc_decode(DECODE_INPUTS, np.array([7, 6, 4]), strategy="beam_search")
    with pytest.raises(ValueError, match="'greedy' and 'beam_search'"):
        ops.ctc_decode(DECODE_INPUTS, np.array([7, 6, 4]), strategy="best")


@pytest.mark.parametrize("args, match", [
    ((TARGET, LOGITS[0], TARGET_LENGTH, OUTPUT_LENGTH), r"output must be logits of shape"),
    ((TARGET[:2], LOGITS, TARGET_LENGTH, OUTPUT_LENGTH), r"target must be integers"),
    ((TARGET.astype("float32"), LOGITS, TARGET_LENGTH, OUTPUT_LENGTH), r"target must be"),
    ((TARGET, LOGITS, TARGET_LENGTH[:3], OUTPUT_LENGTH), r"target_length must be integers"),
    ((TARGET, LOGITS, TARGET_LENGTH + 1, OUTPUT_LENGTH), r"target_length must lie in \[0, 3\]"),
    ((TARGET, LOGITS, TARGET_LENGTH, OUTPUT_LENGTH + 1), r"output_length must lie in \[0, 6\]"),
    ((TARGET + 3, LOGITS, TARGET_LENGTH, OUTPUT_LENGTH), r"labels must lie in \[0, 5\)"),
], ids=["rank", "batch", "float_target", "length_shape", "long_target", "long_output",
        "label_range"])
def test_ctc_loss_rejects_bad_arguments(engine, args, match):
    with pytest.raises(ValueError, match=match):
        ops.ctc_loss(*args)
    with pytest.raises(ValueError, match=r"mask_index must lie in \[0, 5\)"):
        ops.ctc_loss(TARGET, LOGITS, TARGET_LENGTH, OUTPUT_LENGTH, mask_index=5)
