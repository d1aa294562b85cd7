"""heed: on-device translation, generation and embeddings, with CTranslate2's Python API.

    import heed as ctranslate2
    translator = ctranslate2.Translator("model_folder_or_file.heed")
    translator.translate_batch([["▁Hello", "▁world"]])

docs/python.md lists every class, argument and what is supported."""
from . import _heed
from .embedder import Embedder
from .generator import Generator
from .results import GenerationResult, GenerationStepResult, ScoringResult, TranslationResult
from .translator import Translator

__version__ = "0.1.0"
__all__ = ["Translator", "Generator", "Embedder", "convert", "inspect", "TranslationResult", "ScoringResult",
           "GenerationResult", "GenerationStepResult", "contains_model", "get_cuda_device_count",
           "get_supported_compute_types", "set_log_level", "get_log_level", "set_random_seed"]


def convert(source, output, source_format=None, quantize="int8", group_size=None, activation_block=None,
            outlier_channels=None, calibration=None, vmap=None):
    """Converts a model (any format `heed convert` reads; detected when source_format is None) to
    the .heed file `output`, written atomically. Returns a summary dict. outlier_channels and
    calibration are `heed convert --outlier-channels N --calibration FILE` (None: the defaults);
    vmap is `--vmap FILE`, CTranslate2's vocabulary mapping stored in the file (the summary's
    "vmap" entry counts its keys and what was dropped)."""
    import os

    from . import _checks
    if quantize not in ("int8", "float16", "float32"):
        raise ValueError("quantize must be 'int8', 'float16' or 'float32', not %r" % (quantize,))
    most = 2**32 - 1  # the file's fields are 32-bit
    group = 0 if group_size is None else _checks.integer("group_size", group_size, 1, most)
    block = -1 if activation_block is None else _checks.integer("activation_block", activation_block, 0, most)
    outliers = -1 if outlier_channels is None else _checks.integer("outlier_channels", outlier_channels, 0, most)
    return _heed.convert(os.fspath(source), os.fspath(output), source_format or "", quantize, group, block, outliers,
                         "" if calibration is None else os.fspath(calibration),
                         "" if vmap is None else os.fspath(vmap))


def inspect(path):
    """What a .heed file holds: family, format version, metadata, tokenizer, tensors (a dict)."""
    import os
    return _heed.inspect(os.fspath(path))


def contains_model(path):
    """CTranslate2's check: whether `path` is a model heed can open (a .heed file or a model folder)."""
    import os
    path = os.fspath(path)
    return os.path.isfile(path) or os.path.isfile(os.path.join(path, "model.bin"))


def get_cuda_device_count():
    """CTranslate2's GPU count: heed runs on the CPU, so 0 (the usual `"cuda" if
    get_cuda_device_count() else "cpu"` picks the CPU)."""
    return 0


def get_supported_compute_types(device, device_index=0):
    """The compute_type values a model folder can be opened with on `device` (only "cpu")."""
    from . import _checks
    _checks.device(device, device_index)
    return {"float32", "float16", "int8", "int8_float32"}


_log_level = 30  # logging.WARNING, CTranslate2's default


def set_log_level(level):
    """CTranslate2's log level (a Python logging level). heed's runtime writes no log: its
    messages are the exceptions and warnings it raises, so the level is only kept."""
    import logging
    if level not in (logging.CRITICAL, logging.ERROR, logging.WARNING, logging.INFO, logging.DEBUG, logging.NOTSET):
        raise ValueError("Level %s is not a valid logging level" % (level,))
    global _log_level
    _log_level = level


def get_log_level():
    return _log_level


def set_random_seed(seed):
    """The seed of the sampling that follows (sampling_topk != 1): each later call samples with it,
    so the same call with the same seed gives the same tokens."""
    from . import _checks
    _checks.random_seed.value = _checks.integer("seed", seed)
