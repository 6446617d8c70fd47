"""Models, training, losses, metrics, optimizers, callbacks, saving and wrappers."""
