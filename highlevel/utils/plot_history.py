"""``plot_history``: the curves of a ``History`` (or its ``.history`` dict) with matplotlib
(the ``[plot]`` extra): one panel per quantity (loss first, then each metric), the
training curve and, when present, the ``val_`` one. It draws on a ``matplotlib.figure.Figure``
(no pyplot state, no GUI backend needed)."""


def _figure_class():
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError("plot_history needs matplotlib: pip install 'lamina[plot]'") \
            from error
    return Figure


def plot_history(history, to_file=None, metrics=None, figsize=None, dpi=100):
    """Plot ``history`` (a ``History`` or a dict name -> per-epoch values).

    Args:
        history: what ``fit`` returned, or its ``.history`` dict.
        to_file: optional path to save the figure to (format from the extension).
        metrics: the quantities to plot (default: every key without ``val_``, loss first).
        figsize: the figure size in inches (default: 4.5 wide per panel, 3.5 high).
        dpi: resolution of the saved file.

    Returns:
        The matplotlib ``Figure``.
    """
    logs = getattr(history, "history", history)
    if not isinstance(logs, dict) or not logs:
        raise ValueError(f"plot_history needs a History or a non-empty dict of per-epoch "
                         f"values, got {history!r}")
    names = metrics or [k for k in logs if not k.startswith("val_")] or \
        [k[4:] for k in logs]
    names = sorted(names, key=lambda name: name != "loss")
    missing = [n for n in names if n not in logs and f"val_{n}" not in logs]
    if missing:
        raise ValueError(f"plot_history: no values for {missing}; the history has "
                         f"{sorted(logs)}")
    figure = _figure_class()(figsize=figsize or (4.5 * len(names), 3.5))
    axes = figure.subplots(1, len(names), squeeze=False)
    for axis, name in zip(axes[0], names):
        for key, label in ((name, "train"), (f"val_{name}", "validation")):
            if key in logs:
                values = [float(v) for v in logs[key]]
                axis.plot(range(1, len(values) + 1), values, marker="o", markersize=3,
                          label=label)
        axis.set_title(name)
        axis.set_xlabel("epoch")
        axis.grid(True, alpha=0.3)
        axis.legend()
    figure.tight_layout()
    if to_file is not None:
        figure.savefig(to_file, dpi=dpi)
    return figure
