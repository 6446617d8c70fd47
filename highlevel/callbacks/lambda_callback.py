"""The :class:`LambdaCallback`: a callback made from plain functions."""

from .callback import CALLBACKS, Callback


@CALLBACKS.register()
class LambdaCallback(Callback):
    """A callback from plain functions, e.g. ``LambdaCallback(on_epoch_end=lambda
    epoch, logs: print(epoch))``. Hooks taking an epoch or batch get ``(index, logs)``,
    the others ``(logs)``. Any other hook (``on_test_end=...``) can be passed by name.
    """

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None,
                 **kwargs):
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, function in hooks.items():
            if function is None:
                continue
            if not (name.startswith("on_") and callable(getattr(Callback, name, None))):
                raise ValueError(f"LambdaCallback got an unknown hook {name!r}")
            setattr(self, name, function)
