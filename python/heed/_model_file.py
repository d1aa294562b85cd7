"""A model path as a .heed file: .heed files are used as they are; a CTranslate2 model folder (as
Argos Translate passes it) is converted when the model is opened, into a private directory (0700)
whose file is read into memory and removed before the constructor returns, on every path out."""
import os
import shutil
import tempfile
import warnings

from . import _heed


def _compute_type(summary):
    """The model's matrices' type as CTranslate2 reports Translator.compute_type on a CPU."""
    dtypes = {t["dtype"] for t in summary["tensors"] if len(t["shape"]) == 2}
    if "I8" in dtypes:
        return "int8_float32"
    return "float16" if "F16" in dtypes else "float32"


class ModelFile:
    """Opens `model_path` once: `model` (a heed._heed.Model every session shares) or, for the
    embedder, `path` and `use_mmap` while the object is open (close() removes a converted file)."""

    def __init__(self, model_path, compute_type="default", open_model=True):
        if not isinstance(model_path, (str, os.PathLike)):
            raise TypeError("model_path must be a path, not %s" % type(model_path).__name__)
        model_path = os.fspath(model_path)
        if not os.path.exists(model_path):
            raise RuntimeError("Unable to open the model: %s does not exist" % model_path)
        self.use_mmap = True
        self.model = None
        self._directory = None
        if not os.path.isdir(model_path):
            self.path = model_path
            if compute_type != "default":
                warnings.warn("compute_type=%r: a .heed file keeps the weights it was converted with (convert it "
                              "again with heed.convert(..., quantize=...) to change them)" % (compute_type,),
                              stacklevel=3)
        else:
            self._directory = tempfile.mkdtemp(prefix="heed-")  # 0700: the converted weights stay private
            self.path = os.path.join(self._directory, "model.heed")
            self.use_mmap = False  # read into memory: the file goes away once opened
            try:
                _heed.convert(model_path, self.path, "", compute_type, 0, -1, -1, "", "")
            except BaseException:
                self.close()
                raise
        if open_model:
            try:
                self.compute_type = _compute_type(_heed.inspect(self.path))
                self.model = _heed.Model(self.path, self.use_mmap)
            finally:
                self.close()

    def close(self):
        if self._directory is not None:
            shutil.rmtree(self._directory, ignore_errors=True)
            self._directory = None
