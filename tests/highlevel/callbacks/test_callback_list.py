"""CallbackList: the default callbacks it adds, params and model, and batch hooks."""

from harness.callbacks import FakeModel
from lamina.highlevel import callbacks as cb


def test_callback_list_adds_defaults_and_passes_params_and_model():
    model = FakeModel()
    mine = cb.Callback()
    callbacks = cb.CallbackList([mine], add_history=True, add_progbar=True, model=model,
                                verbose=2, epochs=5, steps=10)
    kinds = [type(c) for c in callbacks.callbacks]
    assert kinds == [cb.Callback, cb.History, cb.ProgbarLogger]
    for c in callbacks.callbacks:
        assert c.model is model
        assert c.params == {"verbose": 2, "epochs": 5, "steps": 10}
    assert model.history is callbacks.callbacks[1]

    quiet = cb.CallbackList(None, add_history=True, add_progbar=False, model=model,
                            verbose=0, epochs=1, steps=1)
    assert [type(c) for c in quiet.callbacks] == [cb.History]
    # A History or ProgbarLogger passed in is used instead of a new one.
    own = cb.History()
    listed = cb.CallbackList([[own]], add_history=True, model=model)
    assert listed.callbacks == [own]


def test_batch_hooks_reach_only_callbacks_that_implement_them():
    calls = []

    class Legacy(cb.Callback):
        def on_batch_end(self, batch, logs=None):
            calls.append(("legacy", batch, logs["loss"]))

    class Modern(cb.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            calls.append(("begin", batch))

    callbacks = cb.CallbackList([Legacy(), Modern(), cb.Callback()], add_history=True,
                                model=FakeModel())
    assert len(callbacks._batch_hooks["on_train_batch_end"]) == 1
    assert len(callbacks._batch_hooks["on_test_batch_end"]) == 0
    callbacks.on_train_batch_begin(0, {})
    callbacks.on_train_batch_end(0, {"loss": 0.5})
    callbacks.on_test_batch_end(0, {"loss": 0.5})
    assert calls == [("begin", 0), ("legacy", 0, 0.5)]
