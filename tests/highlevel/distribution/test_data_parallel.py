"""DataParallel on 2 processes (mpirun) trains to the single-process weights and logs the
single-process losses for the same global batch and seed (float64 to 1e-12, float32 to
1e-5), bit-identical on both processes -- also with Dropout/GaussianNoise and RandomFlip
(the global batch's draws), BatchNormalization(synchronized=True), the reductions
``"sum"`` and ``"mean_with_sample_weight"``, a kernel regularizer, a mask whose valid
timesteps differ between the shares (Embedding(mask_zero) + LSTM), and a custom
``train_step`` written with ``lamina.grad`` and ``optimizer.apply`` -- and its
evaluate/predict equal one process'."""

import numpy as np
import pytest
from harness import mpi

from lamina import distribution

MEAN = "sum_over_batch_size"
CASES = [("mlp", "float64", 32, MEAN), ("mlp", "float32", 32, MEAN),
         ("dropout", "float64", 27, MEAN), ("dropout", "float32", 27, MEAN),
         ("noise", "float32", 25, MEAN), ("syncbn", "float64", 27, MEAN),
         ("mlp", "float64", 27, "sum"), ("mlp", "float64", 27, "mean_with_sample_weight"),
         ("regularized", "float64", 27, "sum"), ("regularized", "float64", 27, MEAN),
         ("masked", "float64", 27, MEAN), ("masked", "float64", 27, "sum"),
         ("masked", "float64", 27, "mean_with_sample_weight"),
         ("flip", "float64", 27, MEAN), ("custom", "float64", 27, MEAN)]


@mpi.needs_mpi
@pytest.mark.parametrize("model,dtype,batch,reduction", CASES)
def test_two_processes_train_to_the_single_process_weights(tmp_path, model, dtype, batch,
                                                           reduction):
    # 80 training rows: the last batch (80 % batch) is uneven, sample weights are set
    _check_two_processes_equal_one(tmp_path, ["--model", model, "--dtype", dtype, "--batch",
                                              batch, "--reduction", reduction], dtype)
    assert np.load(tmp_path / "single.rank0.npz")["arr_0"].dtype == np.dtype(dtype)


def _check_two_processes_equal_one(tmp_path, options, dtype, multi_options=()):
    mpi.check(mpi.run(["train", tmp_path / "single", *options], processes=None))
    mpi.check(mpi.run(["train", tmp_path / "multi", *options, *multi_options]))
    single = np.load(tmp_path / "single.rank0.npz")
    first, second = (np.load(tmp_path / f"multi.rank{r}.npz") for r in (0, 1))
    tolerance = 1e-12 if dtype == "float64" else 1e-5
    for key in single.files:
        np.testing.assert_array_equal(first[key], second[key], err_msg=key)  # bit-identical
        np.testing.assert_allclose(first[key], single[key], rtol=0, atol=tolerance,
                                   err_msg=key)


@mpi.needs_mpi
@pytest.mark.parametrize("overlap", ["overlap", "no-overlap"])
def test_small_buckets_summed_during_or_after_the_backward_pass(tmp_path, overlap):
    # 200-byte buckets: dozens of non-blocking sums per step, started while the backward
    # pass runs (overlap) or after it
    _check_two_processes_equal_one(
        tmp_path, ["--model", "masked", "--dtype", "float64", "--batch", 27], "float64",
        ["--bucket-bytes", 200, *(["--no-overlap"] if overlap == "no-overlap" else [])])


def test_data_parallel_arguments_are_checked():
    with pytest.raises(ValueError, match="device_mesh is not supported"):
        distribution.DataParallel(device_mesh="mesh")
    with pytest.raises(ValueError, match="one device per process"):
        distribution.DataParallel(devices=["cpu:0", "cpu:1"])
    with pytest.raises(ValueError, match="bucket_bytes must be a positive integer"):
        distribution.DataParallel(bucket_bytes=0)
    with pytest.raises(ValueError, match="expects a DataParallel or None"):
        distribution.set_distribution("data_parallel")


def test_one_process_distribution_adds_no_hook():
    parallel = distribution.DataParallel(devices=distribution.list_devices())
    assert parallel.num_processes == 1 and parallel.hook is None
    distribution.set_distribution(parallel)
    try:
        assert distribution.distribution() is parallel
    finally:
        distribution.set_distribution(None)
    assert distribution.distribution() is None
