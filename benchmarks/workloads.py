"""The fixed benchmark workloads W1-W4 (data, models, batch sizes, Adam, the timing
protocol: see the README's Benchmarks section): data and per-framework runners.

Each runner builds the model, runs one warm-up epoch, then ``epochs`` timed epochs, and
returns ``{"times": [...], "warmup_loss": float, "unit": "epoch"}``. Frameworks:
``lamina`` (public API: Sequential/compile/fit/predict; ``lamina-jit`` the same with
``compile(jit_compile=True)``), ``numpy`` (the hand-written floor)
and ``torch`` (plain eager loop, 2 threads).
"""

import time

import numpy as np

WORKLOADS = ("W1", "W1-predict", "W2", "W3", "W4")
BATCH = {"W1": 128, "W1-predict": 1024, "W2": 128, "W3": 64, "W4": 32}


def make_data(workload):
    """The workload's (X, y) exactly as BENCHMARKS.md defines them."""
    rng = np.random.default_rng(0)
    if workload in ("W1", "W1-predict"):
        x = rng.standard_normal((60000, 784), dtype=np.float32)
        return x, rng.integers(0, 10, size=60000)
    if workload == "W2":
        x = rng.standard_normal((10000, 28, 28, 1), dtype=np.float32)
        return x, rng.integers(0, 10, size=10000)
    if workload == "W3":
        x = rng.standard_normal((5000, 50, 32), dtype=np.float32)
        return x, rng.integers(0, 10, size=5000)
    if workload == "W4":
        x = rng.standard_normal((20000, 20), dtype=np.float32)
        w = rng.standard_normal((20, 1), dtype=np.float32) / np.float32(np.sqrt(20.0))
        noise = np.float32(0.1) * rng.standard_normal((20000, 1), dtype=np.float32)
        return x, (x @ w + noise).astype(np.float32)
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
def run_lamina(workload, epochs, jit_compile=False):
    import lamina
    from lamina import layers

    lamina.utils.set_random_seed(0)
    x, y = make_data(workload)
    if workload in ("W1", "W1-predict"):
        stack = [layers.Input((784,)), layers.Dense(512, activation="relu"),
                 layers.Dense(512, activation="relu"), layers.Dense(10)]
    elif workload == "W2":
        stack = [layers.Input((28, 28, 1)), layers.Conv2D(32, 3, activation="relu"),
                 layers.MaxPooling2D(2), layers.Conv2D(64, 3, activation="relu"),
                 layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(128, activation="relu"),
                 layers.Dense(10)]
    elif workload == "W3":
        stack = [layers.Input((50, 32)), layers.LSTM(128), layers.Dense(10)]
    else:
        stack = [layers.Input((20,)), layers.Dense(32, activation="relu"), layers.Dense(1)]
    model = lamina.Sequential(stack)
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


# ---------------------------------------------------------------------------- torch
def run_torch(workload, epochs):
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
    elif workload == "W3":
        class LastStep(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(32, 128, batch_first=True)
                self.head = nn.Linear(128, 10)

            def forward(self, inputs):
                _, (hidden, _) = self.lstm(inputs)
                return self.head(hidden[-1])

        model = LastStep()
    else:
        model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 1))
    model.apply(glorot)
    xt = torch.from_numpy(x)
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


RUNNERS = {"lamina": run_lamina, "lamina-jit": run_lamina_jit, "torch": run_torch,
           "numpy": run_numpy}
