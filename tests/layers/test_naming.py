"""Default layer names as Keras gives them (``dense``, ``dense_1``, ...), distinct across
threads, and their reset; snake_case of class names."""

import threading

from lamina.layers import naming


def test_unique_names_count_per_base_and_reset():
    naming.reset_names()
    assert [naming.unique_name("dense") for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert naming.unique_name("conv2d") == "conv2d"
    naming.reset_names()
    assert naming.unique_name("dense") == "dense"


def test_unique_names_distinct_across_threads():
    names = []
    threads = [threading.Thread(target=lambda: names.extend(
        naming.unique_name("threaded") for _ in range(200))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(names)) == 800


def test_snake_case():
    assert naming.snake_case("Conv2D") == "conv2d"
    assert naming.snake_case("MultiHeadAttention") == "multi_head_attention"


def test_get_uid_shares_the_default_names_counter():
    # Keras 3.15.1: after Dense() twice, keras.backend.get_uid("dense") -> 3, then 4
    naming.reset_names()
    assert [naming.unique_name("dense") for _ in range(2)] == ["dense", "dense_1"]
    assert naming.get_uid("dense") == 3 and naming.get_uid("dense") == 4
    assert naming.unique_name("dense") == "dense_4"
    assert naming.get_uid() == 1 and naming.get_uid() == 2
    naming.reset_names()
