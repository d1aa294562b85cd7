"""A model path as a .heed file: .heed files are used as they are; a CTranslate2 model folder (as
Argos Translate passes it) is converted when the model is opened, into a temporary file that is
read into memory and removed at once."""
import os
import tempfile

from . import _heed


class ModelFile:
    def __init__(self, model_path, compute_type="default"):
        if not isinstance(model_path, (str, os.PathLike)):
            raise TypeError("model_path must be a path, not %s" % type(model_path).__name__)
        model_path = os.fspath(model_path)
        if not os.path.exists(model_path):
            raise OSError("model_path %s does not exist" % model_path)
        self.use_mmap = True
        self._temporary = None
        if not os.path.isdir(model_path) and compute_type != "default":
            raise ValueError("compute_type=%r: a .heed file keeps the weights it was converted with; convert "
                             "it again with heed.convert(..., quantize=...)" % (compute_type,))
        if os.path.isdir(model_path):
            fd, self._temporary = tempfile.mkstemp(suffix=".heed")
            os.close(fd)
            try:
                _heed.convert(model_path, self._temporary, "", compute_type, 0, -1, -1, "", "")
            except BaseException:
                self.close()
                raise
            self.path = self._temporary
            self.use_mmap = False  # read into memory: the file goes away once opened
        else:
            self.path = model_path

    def close(self):
        if self._temporary is not None:
            try:
                os.unlink(self._temporary)
            except OSError:
                pass
            self._temporary = None
