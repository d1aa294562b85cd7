"""heed.Embedder: sentence embeddings from an encoder (BERT, sentence-transformers) as NumPy."""
import threading

from . import _checks, _heed
from ._model_file import ModelFile


class Embedder:
    """An encoder-only .heed file (heed convert --from hf-bert), or a model folder converted when
    opened. encode() is serialized per object."""

    def __init__(self, model_path, device="cpu", intra_threads=1, max_batch_size=32, compute_type="default",
                 spin_microseconds=100):
        _checks.device(device)
        threads = _checks.integer("intra_threads", intra_threads)
        spin = _checks.spin(spin_microseconds)
        batch = _checks.integer("max_batch_size", max_batch_size, 1)
        file = ModelFile(model_path, _checks.compute_type(compute_type), open_model=False)
        try:
            self._embedder = _heed.Embedder(file.path, threads, spin, batch, file.use_mmap)
        finally:
            file.close()  # read into memory when it was converted
        self._lock = threading.Lock()

    @property
    def dimension(self):
        return self._embedder.dimension()

    def encode(self, texts, pooling=None, normalize=None):
        """One float32 row per text: [len(texts), dimension]. pooling "mean" or "cls" and normalize
        (L2) default to what the model's folder said (sentence-transformers' Pooling and Normalize
        modules)."""
        texts = _checks.strings("texts", texts)
        if pooling not in (None, "mean", "cls"):
            raise ValueError("pooling must be 'mean', 'cls' or None (the model's), not %r" % (pooling,))
        if normalize is not None:
            _checks.boolean("normalize", normalize)
        with self._lock:
            return self._embedder.encode(texts, pooling or "", -1 if normalize is None else int(normalize))
