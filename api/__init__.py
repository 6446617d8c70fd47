"""The public namespaces, as Keras users import them: ``lamina.optimizers``, ``lamina.ops.nn``...

The root ``__init__`` appends this folder to ``lamina.__path__`` (as Keras does with
``keras/api``), so ``api/optimizers/`` is imported as ``lamina.optimizers`` and
``api/ops/nn.py`` as ``lamina.ops.nn``: real modules, no import hook. Each one only
re-exports the public names of the package that implements them (``lamina.highlevel.*``,
``lamina.layers.options.*``, ``lamina.backends.*``), so every class exists once:
``lamina.optimizers.Adam is lamina.highlevel.optimizers.Adam``. Import them as
``lamina.X``; nothing here is meant to be imported as ``lamina.api.X``.
"""
