"""heed.Embedder: sentence embeddings from an encoder (BERT, sentence-transformers) as NumPy."""
import threading

import numpy

from . import _checks, _heed
from ._model_file import ModelFile


class Embedder:
    """An encoder-only .heed file (heed convert --from hf-bert, hf-xlm-roberta or hf-mpnet), or a model folder
    converted when opened. encode() is serialized per object."""

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

    def encode(self, sentences, prompt_name=None, prompt=None, batch_size=32, show_progress_bar=None,
               output_value="sentence_embedding", precision="float32", convert_to_numpy=True,
               convert_to_tensor=False, device=None, normalize_embeddings=False, pooling=None, normalize=None):
        """sentence-transformers' encode: one float32 row per sentence ([len(sentences), dimension]),
        or one vector for a single str. `prompt` is put before each sentence; batch_size sentences
        go through the model at a time (the rows do not depend on it); show_progress_bar shows a
        tqdm bar; normalize_embeddings L2-normalizes the rows. heed's own: pooling "mean" or "cls"
        and normalize (L2) default to what the model's folder said (sentence-transformers' Pooling
        and Normalize modules). Arguments heed cannot honour (prompt_name, other output values and
        precisions, tensors) raise ValueError naming them."""
        single = isinstance(sentences, str)
        texts = _checks.strings("sentences", [sentences] if single else sentences)
        _encode_supported(prompt_name, output_value, precision, convert_to_numpy, convert_to_tensor, device)
        if prompt is not None:
            if not isinstance(prompt, str):
                raise TypeError("prompt must be a str, not %s" % type(prompt).__name__)
            texts = [prompt + t for t in texts]
        batch_size = _checks.integer("batch_size", batch_size, 1)
        if pooling not in (None, "mean", "cls"):
            raise ValueError("pooling must be 'mean', 'cls' or None (the model's), not %r" % (pooling,))
        if normalize is not None:
            _checks.boolean("normalize", normalize)
        if _checks.boolean("normalize_embeddings", normalize_embeddings):
            normalize = True
        rows = []
        with self._lock:
            for start in _progress(range(0, max(len(texts), 1), batch_size), show_progress_bar, len(texts), batch_size):
                rows.append(self._embedder.encode(texts[start:start + batch_size], pooling or "",
                                                  -1 if normalize is None else int(normalize)))
        out = numpy.concatenate(rows) if len(rows) > 1 else rows[0]
        return out[0] if single else out

    @staticmethod
    def similarity(embeddings1, embeddings2):
        """sentence-transformers' similarity (cosine, its default): [len(embeddings1), len(embeddings2)]."""
        a = numpy.atleast_2d(numpy.asarray(embeddings1, dtype=numpy.float32))
        b = numpy.atleast_2d(numpy.asarray(embeddings2, dtype=numpy.float32))
        if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[1]:
            raise ValueError("similarity needs two sets of vectors of one dimension, not shapes %s and %s"
                             % (a.shape, b.shape))
        a = a / numpy.maximum(numpy.linalg.norm(a, axis=1, keepdims=True), 1e-12)
        b = b / numpy.maximum(numpy.linalg.norm(b, axis=1, keepdims=True), 1e-12)
        return a @ b.T


def _encode_supported(prompt_name, output_value, precision, convert_to_numpy, convert_to_tensor, device):
    if prompt_name is not None:
        raise ValueError("prompt_name=%r: heed's models carry no named prompts; pass prompt=... instead" % (prompt_name,))
    if output_value != "sentence_embedding":
        raise ValueError("output_value=%r is not supported: heed returns sentence embeddings" % (output_value,))
    if precision != "float32":
        raise ValueError("precision=%r is not supported: heed returns float32" % (precision,))
    if convert_to_tensor or not convert_to_numpy:
        raise ValueError("convert_to_tensor=True / convert_to_numpy=False are not supported: heed returns NumPy arrays "
                         "(torch.from_numpy makes a tensor without a copy)")
    if device not in (None, "cpu"):
        raise ValueError("device=%r is not supported: heed runs on the CPU" % (device,))


def _progress(batches, show, total, batch_size):
    """The batches, behind a tqdm bar counting sentences when asked (as sentence-transformers)."""
    if not show:
        return batches
    try:
        from tqdm.auto import tqdm
    except ImportError:
        raise ImportError("show_progress_bar=True needs tqdm (pip install tqdm)") from None

    def counted():
        with tqdm(total=total, desc="Batches", unit="sentence") as bar:
            for start in batches:
                yield start
                bar.update(min(batch_size, total - start))
    return counted()
