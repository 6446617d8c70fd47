"""The architecture rules of ``../shared/DESIGN.md`` section 1, checked on the source tree.

Imports only go down (``highlevel -> layers -> backends``; the root ``__init__`` re-exports
and sits on top), there are no import cycles inside lamina (function-level imports
included), no module is over 600 lines, no module uses another module's private
(underscore) names, every source module has a test file mirroring it
(``tests/<folder>/test_<name>.py`` beside ``<folder>/<name>.py``, or an entry in
``UNMIRRORED`` saying why not), every test file mirrors a source module or an example (or
is a cross-cutting test listed in ``CROSS_CUTTING`` with its reason), and nothing installs
an import hook. The source is parsed (``ast``), not imported.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
NOT_SOURCE = {"tests", "examples", "benchmarks"}
TIERS = {"backends": 0, "layers": 1, "highlevel": 2}   # anything else: api/ namespaces
TOP_TIER = 3                     # the root __init__: public re-exports of every tier
MAX_LINES = 600

# Source modules without a mirroring test file, and why.
UNMIRRORED = {
    "__init__.py": "the public re-exports; tests/test_public_api.py checks them",
    "backends/interface.py": "the abstract Backend: every engine test runs through it",
    "backends/array_engine.py": "the kernels both engines share: every op test (check_op) "
                                "runs through them on each engine",
    "backends/registry.py": "name lookup, tested through every get()/deserialize test in "
                            "layers/options and the unknown-name tests",
    "backends/cupy/engine.py": "the CuPy engine: every op test runs on it where a GPU is",
    "backends/ops/core.py": "plumbing shared by the op families, tested through them",
    "backends/ops/activation_kernels.py": "the in-place activations of the fused ops, tested "
                                          "through the dense, conv and recurrent op tests "
                                          "(check_op on every engine)",
    "backends/ops/conv.py": "conv and pool ops, tested beside their kernels in "
                           "tests/backends/test_conv.py and test_pool.py",
    "layers/arguments.py": "argument validation, tested by each layer's bad-argument tests",
    "layers/configurable.py": "config plumbing, tested by every layer's config round trip",
    "layers/symbolic.py": "symbolic tensors and nodes, tested by the functional-model and "
                          "masking tests of test_base.py",
    "layers/options/weight_options.py": "shared lookup of initializers/regularizers/"
                                        "constraints, tested by the options tests",
    "layers/rnn/cells.py": "the cells, tested with the layers in tests/layers/rnn/test_rnn.py",
    "layers/rnn/bidirectional.py": "tested with the recurrent layers it wraps in "
                                   "tests/layers/rnn/test_rnn.py",
    "highlevel/losses/cross_entropy.py": "the cross-entropy functions, tested with their loss "
                                         "classes in tests/highlevel/losses/test_losses.py",
    "highlevel/losses/loss_utils.py": "argument handling of every loss and metric, tested "
                                      "through them (test_losses.py, test_metrics.py)",
    "highlevel/optimizers/moments.py": "Nadam's and Adamax's shared constructor and config, "
                                       "tested through test_nadam.py and test_adamax.py",
    "highlevel/metrics/reduction_metrics.py": "Mean/Sum/MeanMetricWrapper, tested through "
                                              "every metric built on them (test_metrics.py)",
    "highlevel/saving/saving_api.py": "lamina.saving's functions, tested in "
                                      "tests/test_public_api.py and saving/test_model_file.py",
    "highlevel/utils/array_batches.py": "batching of in-memory arrays, tested through fit/"
                                        "evaluate/predict in training/test_data_adapters.py",
    "highlevel/saving/serialization.py": "Keras 3's layer/graph config schema, tested by the "
                                         "config round trips of tests/highlevel/models/ and "
                                         "the Keras files of saving/test_keras_format.py",
    "highlevel/wrappers/default_networks.py": "the wrappers' defaults (networks, training "
                                              "arguments, engine scope), tested through the "
                                              "estimators in wrappers/test_sklearn.py",
}
MIRRORED_TEST_FOLDERS = ("backends", "layers", "highlevel")

# Test files that mirror no single module: they check a property that crosses the tree.
CROSS_CUTTING = {
    "test_layout.py": "the architecture rules, on the whole source tree",
    "test_public_api.py": "the public namespaces (lamina.X) and what they re-export",
    "benchmarks/test_quick_suite.py": "benchmarks/run.py --quick runs and reports",
    "benchmarks/test_gemm_floor.py": "benchmarks/gemm_floor.py times a W5 step's GEMMs",
    "highlevel/export/test_export.py": "model.export, the entry point of the export package "
                                       "(highlevel/export/__init__.py)",
    "highlevel/callbacks/test_callback_hooks.py": "the hook sequence fit/evaluate/predict "
                                                  "fire, against Keras 3.15 (trainer and "
                                                  "callbacks together)",
    "highlevel/callbacks/test_progbar_notebook.py": "a second file of progbar.py (the "
                                                    "Jupyter bar, a faked kernel)",
    "highlevel/saving/test_object_registration_names.py": "a second file of "
                                                          "object_registration.py (exact "
                                                          "registered names)",
    "properties/test_bad_input.py": "bad input anywhere (layers, compile, fit) gives an error "
                                    "naming the problem",
    "properties/test_determinism_memory.py": "the same seed gives bit-identical training "
                                             "(initializers, Dropout, shuffling) and training "
                                             "keeps memory flat",
    "properties/test_float32_steps.py": "no float64 anywhere in a float32 training step of "
                                        "each benchmark workload (every op and gradient)",
    "properties/test_threads.py": "training and inference on several threads (engine state, "
                                  "models, the wrappers' engine scopes)",
}

def source_files():
    """Every module of the package, as paths relative to the repository root."""
    return sorted(path.relative_to(ROOT) for path in ROOT.rglob("*.py")
                  if path.relative_to(ROOT).parts[0] not in NOT_SOURCE | {"setup.py"}
                  and not any(part.startswith(".") for part in path.relative_to(ROOT).parts))


def module_name(path):
    """``lamina.a.b`` for ``a/b.py`` and ``a/b/__init__.py``."""
    parts = path.with_suffix("").parts
    if parts[0] == "api":           # api/ is on lamina.__path__: api/losses.py is lamina.losses
        parts = parts[1:]
    parts = ("lamina",) + parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in source_files()}


def imports(path, module_level_only=False):
    """The lamina modules ``path`` imports (each ``from X import y`` counts as ``X.y`` when
    that is a module, else ``X``)."""
    tree = ast.parse((ROOT / path).read_text(), str(path))
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = tree.body if module_level_only else ast.walk(tree)
    if module_level_only:       # also statements nested in module-level if/try blocks
        nodes = [node for top in tree.body if not isinstance(
            top, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for node in ast.walk(top)]
    found = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                candidate = f"{base}.{alias.name}"
                found.add(candidate if candidate in MODULES else base)
    return {target for target in found if target == "lamina" or target.startswith("lamina.")}


def tier(name):
    """0 backends, 1 layers, 2 highlevel, 3 the root package and its api/ namespaces."""
    parts = name.split(".")
    return TIERS.get(parts[1], TOP_TIER) if len(parts) > 1 else TOP_TIER


def test_imports_only_go_down():
    upward = [f"{name} imports {target}"
              for name, path in MODULES.items() for target in sorted(imports(path))
              if tier(target) > tier(name)]
    assert not upward, "imports must go highlevel -> layers -> backends:\n" + "\n".join(upward)


def import_cycles(module_level_only):
    """Every import cycle among lamina's modules, as ``a -> b -> a`` strings."""
    graph = {name: {t for t in imports(path, module_level_only) if t in MODULES}
             for name, path in MODULES.items()}
    cycles, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == "open":
                cycles.append(" -> ".join(stack[stack.index(target):] + [target]))
            elif target not in state:
                visit(target, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return cycles


def test_no_module_level_import_cycles():
    cycles = import_cycles(module_level_only=True)
    assert not cycles, "module-level import cycles:\n" + "\n".join(cycles)


def test_no_import_cycles_through_function_level_imports():
    cycles = import_cycles(module_level_only=False)
    assert not cycles, "import cycles (function-level imports included):\n" + "\n".join(cycles)


def line_count(path):
    """Lines in source module ``path``."""
    return len((ROOT / path).read_text().splitlines())


def test_no_module_over_600_lines():
    long = {str(path): line_count(path) for path in source_files()
            if line_count(path) > MAX_LINES}
    assert not long, f"modules over {MAX_LINES} lines: {long}"


def uses_import_hook(path):
    """True when source module ``path`` touches ``sys.meta_path``."""
    return "meta_path" in (ROOT / path).read_text()


def test_no_import_hook():
    hooks = [str(path) for path in source_files() if uses_import_hook(path)]
    assert not hooks, f"sys.meta_path used in {hooks}; make namespaces real packages"


# Private names a module may use although another module (or package) defines them, and why.
KERAS_MASK = ("Keras' own attribute for the mask a tensor carries (``tensor._keras_mask``, "
              "read and set by user code as in Keras 3); lamina keeps its name")
PRIVATE_USES_ALLOWED = {
    ("highlevel/wrappers/sklearn.py", "_check_sample_weight"):
        "scikit-learn's own sample_weight validation, which its estimators use and which has "
        "no public equivalent; the estimator checks hold the wrappers to it",
    ("layers/masks.py", "_keras_mask"): KERAS_MASK,
    ("highlevel/models/functional.py", "_keras_mask"): KERAS_MASK,
    ("highlevel/losses/loss_utils.py", "_keras_mask"): KERAS_MASK,
    ("layers/dtype_policy_mixin.py", "_keras_mask"): KERAS_MASK,
    ("highlevel/metrics/reduction_metrics.py", "_getframe"):
        "sys._getframe(1): the caller's module for the generated metric classes' "
        "__module__ (so they pickle by reference), as the standard library's namedtuple does",
    ("highlevel/callbacks/tensorboard.py", "_get_file_writer"):
        "tensorboardX's SummaryWriter has no public call that writes a raw Summary proto "
        "(the Keras graph summary); its own add_* methods go through _get_file_writer",
    ("backends/tree.py", "_fields"):
        "a namedtuple's documented field names: how keras.tree (optree) tells a namedtuple "
        "from a plain tuple subclass",
}


def is_private(name):
    """``_name`` (one or two leading underscores), not a ``__dunder__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_self(node):
    """``self``, ``cls`` or ``super()``: an object's own (and its base classes') names."""
    return (isinstance(node, ast.Name) and node.id in ("self", "cls")) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id == "super")


def defined_names(tree):
    """The names a module defines: its functions, classes, variables and arguments, the
    attributes it sets on ``self``/``cls``, and its ``__slots__`` entries."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                and _is_self(node.value):
            names.add(node.attr)
        elif isinstance(node, ast.Assign) and any(
                isinstance(target, ast.Name) and target.id == "__slots__"
                for target in node.targets):
            names.update(c.value for c in ast.walk(node.value)
                         if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return names


def private_uses(path):
    """``(line, name, how)`` for each private name module ``path`` uses but does not define:
    ``x._name`` (read or set) and ``getattr``/``hasattr``/``setattr(x, "_name")`` on
    anything but ``self``/``cls``/``super()``, and ``from module import _name``."""
    tree = ast.parse((ROOT / path).read_text(), str(path))
    own = defined_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr) \
                and node.attr not in own and not _is_self(node.value):
            found.append((node.lineno, node.attr, f"{ast.unparse(node.value)}.{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "hasattr", "setattr", "delattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str) and is_private(node.args[1].value) \
                and node.args[1].value not in own and not _is_self(node.args[0]):
            name = node.args[1].value
            found.append((node.lineno, name, f"{node.func.id}(..., {name!r})"))
        elif isinstance(node, ast.ImportFrom):
            found.extend((node.lineno, alias.name, f"from {'.' * node.level}"
                          f"{node.module or ''} import {alias.name}")
                         for alias in node.names if is_private(alias.name))
    return found


def test_no_module_uses_another_modules_private_names():
    uses = [f"{path}:{line}: {how}" for path in source_files()
            for line, name, how in private_uses(path)
            if (str(path), name) not in PRIVATE_USES_ALLOWED]
    assert not uses, ("private names used outside the module that defines them (give the "
                      "shared thing a public name in its owner):\n" + "\n".join(uses))


def test_the_private_use_allow_list_is_needed():
    stale = [f"{path}: {name}" for path, name in PRIVATE_USES_ALLOWED
             if name not in {used for _, used, _ in private_uses(Path(path))}]
    assert not stale, f"PRIVATE_USES_ALLOWED entries no longer used: {stale}"


def mirror_of(path):
    """``tests/a/test_b.py`` for ``a/b.py``."""
    return TESTS / path.parent / f"test_{path.stem}.py"


def unmirrored(folders):
    """Source modules in ``folders`` with neither a test file nor an UNMIRRORED reason."""
    return [str(path) for path in source_files()
            if (path.parts[0] in folders or len(path.parts) == 1)
            and path.name != "__init__.py" and not mirror_of(path).exists()
            and str(path) not in UNMIRRORED]


def test_every_module_has_a_mirroring_test():
    missing = unmirrored(MIRRORED_TEST_FOLDERS)
    assert not missing, "add tests/<folder>/test_<name>.py (or a reason in UNMIRRORED): " \
        + ", ".join(missing)


def test_every_test_file_mirrors_a_module_or_an_example_or_is_cross_cutting():
    sources = {str(path) for path in source_files()}
    examples = {path.name for path in (ROOT / "examples").glob("*.py")}
    orphans = []
    for test in sorted(TESTS.rglob("test_*.py")):
        relative = test.relative_to(TESTS)
        mirrored = str(relative.parent / test.name[len("test_"):])
        if relative.parts[0] in MIRRORED_TEST_FOLDERS:
            home = mirrored in sources or str(relative) in CROSS_CUTTING
        elif relative.parts[0] == "examples":
            home = (relative.parent == Path("examples")
                    and mirrored[len("examples/"):] in examples) or str(relative) in CROSS_CUTTING
        else:
            home = str(relative) in CROSS_CUTTING
        if not home:
            orphans.append(str(relative))
    assert not orphans, ("test files that mirror no source module or example (and are not "
                         f"listed in CROSS_CUTTING): {orphans}")


def test_every_example_has_a_test():
    missing = [path.name for path in sorted((ROOT / "examples").glob("*.py"))
               if not (TESTS / "examples" / f"test_{path.name}").exists()]
    assert not missing, f"add tests/examples/test_<name>.py for {missing}"


def test_the_cross_cutting_list_names_real_test_files():
    stale = [name for name in CROSS_CUTTING if not (TESTS / name).exists()]
    assert not stale, f"CROSS_CUTTING entries that no longer exist: {stale}"


def test_the_allow_list_names_real_modules_without_tests():
    sources = {str(path) for path in source_files()}
    stale = [name for name in UNMIRRORED
             if name not in sources or mirror_of(Path(name)).exists()]
    assert not stale, f"UNMIRRORED entries that no longer apply: {stale}"
