"""The fixed benchmark workloads W1-W5 and W3-64 (W3 with LSTM(64)): data, models,
batch sizes, Adam, the timing protocol (see the README's Benchmarks section); data and
per-framework runners.

Each runner builds the model, runs one warm-up epoch, then ``epochs`` timed epochs, and
returns ``{"times": [...], "warmup_loss": float, "unit": "epoch"}``. Frameworks:
``lamina`` (public API: Sequential/compile/fit/predict; ``lamina-jit`` the same with
``compile(jit_compile=True)``; ``lamina-dp`` the same under
``distribution.set_distribution(DataParallel())``, each batch split over the threads),
``numpy`` (the hand-written floor)
and ``torch`` (plain eager loop, 2 threads; W5's attention written by hand), and
``torch-mha`` (W5 only: the same loop with ``nn.MultiheadAttention``).
"""

import time

import numpy as np

WORKLOADS = ("W1", "W1-predict", "W2", "W3", "W3-64", "W4", "W5")
BATCH = {"W1": 128, "W1-predict": 1024, "W2": 128, "W3": 64, "W3-64": 64, "W4": 32, "W5": 32}
#: The LSTM width of W3 and of its variant W3-64 (the same data and head, LSTM(64)).
LSTM_UNITS = {"W3": 128, "W3-64": 64}
#: W5's Transformer encoder: vocabulary, sequence length, width, heads, MLP width, blocks.
VOCAB, LENGTH, WIDTH, HEADS, HIDDEN, BLOCKS = 5000, 64, 128, 4, 256, 2


def make_data(workload):
    """The workload's (X, y) exactly as BENCHMARKS.md defines them."""
    rng = np.random.default_rng(0)
    if workload in ("W1", "W1-predict"):
        x = rng.standard_normal((60000, 784), dtype=np.float32)
        return x, rng.integers(0, 10, size=60000)
    if workload == "W2":
        x = rng.standard_normal((10000, 28, 28, 1), dtype=np.float32)
        return x, rng.integers(0, 10, size=10000)
    if workload in LSTM_UNITS:
        x = rng.standard_normal((5000, 50, 32), dtype=np.float32)
        return x, rng.integers(0, 10, size=5000)
    if workload == "W4":
        x = rng.standard_normal((20000, 20), dtype=np.float32)
        w = rng.standard_normal((20, 1), dtype=np.float32) / np.float32(np.sqrt(20.0))
        noise = np.float32(0.1) * rng.standard_normal((20000, 1), dtype=np.float32)
        return x, (x @ w + noise).astype(np.float32)
    if workload == "W5":
        # Token ids; the label is the sign of the mean of a fixed random score per token.
        ids = rng.integers(0, VOCAB, size=(8000, LENGTH)).astype(np.int32)
        scores = rng.standard_normal(VOCAB, dtype=np.float32)
        return ids, (scores[ids].mean(axis=1) > 0).astype(np.int64)
    raise ValueError(f"unknown workload {workload!r}; known: {WORKLOADS}")


def _timed(run_epoch, epochs):
    warmup_loss = run_epoch()
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        run_epoch()
        times.append(time.perf_counter() - start)
    return {"times": times, "warmup_loss": float(warmup_loss)}


# ---------------------------------------------------------------------------- lamina
def run_lamina(workload, epochs, jit_compile=False, data_parallel=False):
    import lamina
    from lamina import layers

    lamina.utils.set_random_seed(0)
    if data_parallel:
        lamina.distribution.set_distribution(lamina.distribution.DataParallel())
    x, y = make_data(workload)
    if workload in ("W1", "W1-predict"):
        stack = [layers.Input((784,)), layers.Dense(512, activation="relu"),
                 layers.Dense(512, activation="relu"), layers.Dense(10)]
    elif workload == "W2":
        stack = [layers.Input((28, 28, 1)), layers.Conv2D(32, 3, activation="relu"),
                 layers.MaxPooling2D(2), layers.Conv2D(64, 3, activation="relu"),
                 layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(128, activation="relu"),
                 layers.Dense(10)]
    elif workload in LSTM_UNITS:
        stack = [layers.Input((50, 32)), layers.LSTM(LSTM_UNITS[workload]),
                 layers.Dense(10)]
    else:
        stack = [layers.Input((20,)), layers.Dense(32, activation="relu"), layers.Dense(1)]
    model = _lamina_encoder() if workload == "W5" else lamina.Sequential(stack)
    loss = "mse" if workload == "W4" else lamina.losses.SparseCategoricalCrossentropy(
        from_logits=True)
    model.compile(optimizer=lamina.optimizers.Adam(learning_rate=1e-3), loss=loss,
                  jit_compile=jit_compile)
    batch = BATCH[workload]
    if workload == "W1-predict":
        def run_epoch():
            return float(np.mean(model.predict(x, batch_size=batch, verbose=0)))
    else:
        def run_epoch():
            history = model.fit(x, y, batch_size=batch, epochs=1, shuffle=True, verbose=0)
            return history.history["loss"][-1]
    return _timed(run_epoch, epochs)


def _lamina_encoder():
    """W5's model through the functional API (a custom layer adds the positions)."""
    import lamina
    from lamina import layers

    class PositionEmbedding(layers.Layer):
        """Adds a learned (length, width) position embedding to its input."""

        def build(self, input_shape):
            self.positions = self.add_weight(tuple(input_shape[1:]), "uniform",
                                             name="positions")

        def call(self, inputs):
            return lamina.ops.add(inputs, self.positions)

    ids = layers.Input((LENGTH,), dtype="int32")
    x = PositionEmbedding()(layers.Embedding(VOCAB, WIDTH)(ids))
    for _ in range(BLOCKS):
        attended = layers.MultiHeadAttention(num_heads=HEADS, key_dim=WIDTH // HEADS)(x, x)
        x = layers.LayerNormalization()(layers.Add()([x, attended]))
        hidden = layers.Dense(HIDDEN, activation="relu")(x)
        x = layers.LayerNormalization()(layers.Add()([x, layers.Dense(WIDTH)(hidden)]))
    outputs = layers.Dense(2)(layers.GlobalAveragePooling1D()(x))
    return lamina.Model(ids, outputs)


# ---------------------------------------------------------------------------- torch
def _torch_encoder(torch, library_attention):
    """W5's model in PyTorch: attention by hand (q k^T / sqrt(d), softmax, v) or with
    ``nn.MultiheadAttention``; LayerNorm epsilon 1e-3 and the embedding's uniform(-0.05,
    0.05) initialization as Keras'."""
    nn = torch.nn
    head_dim = WIDTH // HEADS

    class HandAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.query, self.key, self.value, self.output = (
                nn.Linear(WIDTH, WIDTH) for _ in range(4))

        def forward(self, x):
            batch = x.shape[0]

            def heads(projection):
                return projection(x).view(batch, LENGTH, HEADS, head_dim).transpose(1, 2)

            q, k, v = heads(self.query), heads(self.key), heads(self.value)
            weights = torch.softmax(q @ k.transpose(-2, -1) / head_dim ** 0.5, dim=-1)
            context = (weights @ v).transpose(1, 2).reshape(batch, LENGTH, WIDTH)
            return self.output(context)

    class LibraryAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = nn.MultiheadAttention(WIDTH, HEADS, batch_first=True)

        def forward(self, x):
            return self.attention(x, x, x, need_weights=False)[0]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.attention = LibraryAttention() if library_attention else HandAttention()
            self.norm1, self.norm2 = nn.LayerNorm(WIDTH, eps=1e-3), nn.LayerNorm(WIDTH, eps=1e-3)
            self.hidden, self.out = nn.Linear(WIDTH, HIDDEN), nn.Linear(HIDDEN, WIDTH)

        def forward(self, x):
            x = self.norm1(x + self.attention(x))
            return self.norm2(x + self.out(torch.relu(self.hidden(x))))

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(VOCAB, WIDTH)
            self.positions = nn.Parameter(torch.empty(LENGTH, WIDTH))
            self.blocks = nn.Sequential(*(Block() for _ in range(BLOCKS)))
            self.head = nn.Linear(WIDTH, 2)
            for table in (self.embedding.weight, self.positions):
                nn.init.uniform_(table, -0.05, 0.05)

        def forward(self, ids):
            return self.head(self.blocks(self.embedding(ids) + self.positions).mean(dim=1))

    return Encoder()


def torch_epoch(torch, model, optimizer, loss_fn, xt, yt, batch):
    """One shuffled epoch of the plain PyTorch training loop; returns the mean loss."""
    n = len(xt)
    order = torch.randperm(n)
    total = 0.0
    for start in range(0, n, batch):
        idx = order[start:start + batch]
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(xt[idx]), yt[idx])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(idx)
    return total / n


def run_torch_mha(workload, epochs):
    """W5 with ``nn.MultiheadAttention`` (None for the other workloads)."""
    return run_torch(workload, epochs, library_attention=True) if workload == "W5" else None


def run_torch(workload, epochs, library_attention=False):
    import torch

    torch.set_num_threads(2)
    torch.manual_seed(0)
    nn = torch.nn
    x, y = make_data(workload)

    def glorot(module):
        if isinstance(module, (nn.Linear, nn.Conv2d)):
            nn.init.xavier_uniform_(module.weight)
            nn.init.zeros_(module.bias)

    if workload in ("W1", "W1-predict"):
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10))
    elif workload == "W2":
        x = np.ascontiguousarray(x.transpose(0, 3, 1, 2))
        model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                              nn.Linear(64 * 5 * 5, 128), nn.ReLU(), nn.Linear(128, 10))
    elif workload in LSTM_UNITS:
        units = LSTM_UNITS[workload]

        class LastStep(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(32, units, batch_first=True)
                self.head = nn.Linear(units, 10)

            def forward(self, inputs):
                _, (hidden, _) = self.lstm(inputs)
                return self.head(hidden[-1])

        model = LastStep()
    elif workload == "W5":
        model = _torch_encoder(torch, library_attention)
    else:
        model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
    model.apply(glorot)
    xt = torch.from_numpy(x.astype(np.int64) if workload == "W5" else x)
    yt = torch.from_numpy(y if workload == "W4" else y.astype(np.int64))
    loss_fn = nn.MSELoss() if workload == "W4" else nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-7)
    batch = BATCH[workload]
    n = len(x)

    if workload == "W1-predict":
        def run_epoch():
            with torch.no_grad():
                outs = [model(xt[i:i + batch]).numpy() for i in range(0, n, batch)]
            return float(np.mean(np.concatenate(outs)))
    else:
        def run_epoch():
            return torch_epoch(torch, model, optimizer, loss_fn, xt, yt, batch)
    return _timed(run_epoch, epochs)


# ---------------------------------------------------------------------------- numpy floor
def run_numpy(workload, epochs):
    """The hand-written NumPy training loop (W1, W1-predict, W4 only)."""
    from numpy_floor import mlp_floor

    if workload not in ("W1", "W1-predict", "W4"):
        return None
    x, y = make_data(workload)
    sizes = (784, 512, 512, 10) if workload != "W4" else (20, 32, 1)
    run_epoch = mlp_floor(x, y, sizes, BATCH[workload], regression=workload == "W4",
                          predict_only=workload == "W1-predict")
    return _timed(run_epoch, epochs)


def run_lamina_jit(workload, epochs):
    """lamina with ``compile(jit_compile=True)`` (replayed traced steps)."""
    return run_lamina(workload, epochs, jit_compile=True)


def run_lamina_dp(workload, epochs):
    """lamina with a one-process ``DataParallel``: each batch split over the threads."""
    return run_lamina(workload, epochs, data_parallel=True)


RUNNERS = {"lamina": run_lamina, "lamina-jit": run_lamina_jit, "lamina-dp": run_lamina_dp,
           "torch": run_torch,
           "torch-mha": run_torch_mha, "numpy": run_numpy}
