"""Package discovery for setuptools (the rest of the metadata is in pyproject.toml).

The repository root is the package ``lamina``: setuptools' finder names what it finds
after its folder (``backends``, not ``lamina.backends``) and pyproject.toml cannot add the
prefix, so the names are computed here from every folder with an ``__init__.py``.
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

NOT_PACKAGES = ["tests", "tests.*", "examples", "examples.*", "benchmarks", "benchmarks.*",
                "docs", "docs.*", "build", "build.*"]


def lamina_packages(root="."):
    """``lamina`` and ``lamina.<subpackage>`` for every package folder under ``root``."""
    return ["lamina"] + [f"lamina.{name}" for name in find_packages(root, exclude=NOT_PACKAGES)]


class BuildPy(build_py):
    """build_py without this file: it sits in the root folder, which is the package."""

    def find_package_modules(self, package, package_dir):
        return [entry for entry in super().find_package_modules(package, package_dir)
                if not (package == "lamina" and entry[1] == "setup")]


if __name__ == "__main__":
    setup(packages=lamina_packages(), package_dir={"lamina": "."},
          cmdclass={"build_py": BuildPy})
