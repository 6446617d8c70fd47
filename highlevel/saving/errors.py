"""The errors raised when writing or reading checkpoints (HDF5 files and ``.keras``
archives).

Every error is a :class:`CheckpointError`, itself a ``ValueError`` (as Keras raises), and
its message names the file and, where one is involved, the layer. They are raised while
the file is read and checked, before anything is assigned to a model, so a failed load
leaves the target model unchanged.

=====================================  ====================================================
error                                  raised for
=====================================  ====================================================
:class:`NotHDF5Error`                  a file that is not HDF5 (or does not exist)
:class:`UnsupportedFormatError`        unknown weight layouts, files from a newer lamina
                                       format version, files that are not self-contained
                                       (external raw storage, external links, soft links
                                       leaving the file, virtual datasets), ``.keras``
                                       archives with unexpected or encrypted members,
                                       refused before any data is read
:class:`TruncatedFileError`            a file cut short (its end is missing; for a zip, its
                                       directory)
:class:`CorruptFileError`              unreadable structure, a checksum that does not match,
                                       datasets declaring more data than the file holds,
                                       an invalid random seed or optimizer iteration; a
                                       ``.keras`` path that is not a zip, archive members
                                       with absolute or climbing names (path traversal),
                                       duplicate members, zip bombs (declared size over
                                       its cap or far over its compressed size), bad CRCs
:class:`MissingConfigError`            a full-model load from a file without ``model_config``
                                       (``config.json`` in a ``.keras`` archive)
:class:`UnknownClassError`             a config naming a class that is neither built in
                                       nor given in ``custom_objects``
:class:`ConfigError`                   a config that cannot be rebuilt into a model
                                       (bad values, unsupported Keras options, a Lambda
                                       stored as code in ``safe_mode``, a complex
                                       or object dtype, layers that would create far more
                                       weight values than the file stores)
:class:`WeightMismatchError`           wrong number of layers or weights, a weight shape
                                       that does not match the model, an integer weight
                                       that would truncate stored floats, or a load that
                                       would set no weight at all
=====================================  ====================================================
"""


class CheckpointError(ValueError):
    """Base class of every checkpoint error; ``path`` is the file concerned (or None)."""

    def __init__(self, message, path=None):
        super().__init__(message)
        self.path = path


class NotHDF5Error(CheckpointError):
    """The file does not exist or is not an HDF5 file."""


class UnsupportedFormatError(CheckpointError):
    """The file (or the requested path) uses a format lamina does not read or write."""


class TruncatedFileError(CheckpointError):
    """The HDF5 file ends before its declared end (an interrupted copy or write)."""


class CorruptFileError(CheckpointError):
    """The file's structure cannot be read, or a stored checksum does not match."""


class MissingConfigError(CheckpointError):
    """A full-model load needs the ``model_config`` attribute, which the file lacks."""


class UnknownClassError(CheckpointError):
    """A config names a class that is not registered and not in ``custom_objects``."""


class ConfigError(CheckpointError):
    """The stored model or training config cannot be turned back into a model."""


class WeightMismatchError(CheckpointError):
    """The file's layers/weights do not fit the model (count or shape)."""


def describe(path):
    """How a path appears in messages (in-memory files have no name)."""
    return "<in-memory file>" if path is None else repr(str(path))


__all__ = ["CheckpointError", "ConfigError", "CorruptFileError", "MissingConfigError", "NotHDF5Error",
           "TruncatedFileError", "UnknownClassError", "UnsupportedFormatError",
           "WeightMismatchError", "describe"]
