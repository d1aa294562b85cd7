"""What CTranslate2's Translator and Generator share: the constructor's model arguments, the model
opened once, and the attributes and load/unload calls of a model object."""
from . import _checks
from ._model_file import ModelFile


class ModelObject:
    """A model opened once with one session at a time (`_current`): subclasses plan the session in
    `_first_session()` and drop their own planning state in `_forget()`."""

    def __init__(self, kind, model_path, device, device_index, compute_type, inter_threads, intra_threads,
                 max_queued_batches, flash_attention, tensor_parallel, files, spin_microseconds):
        self._threads, weights = _checks.model_options(device, device_index, compute_type, inter_threads,
                                                       intra_threads, max_queued_batches, flash_attention,
                                                       tensor_parallel, files)
        self._spin = _checks.spin(spin_microseconds)
        self._lock = _checks.CallLock(kind)
        self._open = lambda: ModelFile(model_path, weights)
        self._model = None
        self._current = None  # (shape, session): the one session, planned for the largest call
        self.load_model()  # errors come from the constructor

    device = property(lambda self: "cpu", doc="The device the model runs on: always 'cpu'.")
    device_index = property(lambda self: [0], doc="The device indices: [0].")
    compute_type = property(lambda self: self._compute_type,
                            doc="The weights' type as CTranslate2 names it (int8_float32, float16, float32).")
    num_queued_batches = property(lambda self: 0)
    num_active_batches = property(lambda self: 0)

    @property
    def model_is_loaded(self):
        return self._model is not None

    def unload_model(self, to_cpu=False):
        """Frees the session and the weights (to_cpu changes nothing: they are on the CPU)."""
        _checks.boolean("to_cpu", to_cpu)
        with self._lock:
            self._current = None
            self._model = None
            self._forget()

    def load_model(self, keep_cache=False):
        """Opens the model again after unload_model (a model folder is converted again)."""
        _checks.boolean("keep_cache", keep_cache)
        with self._lock:
            if self._model is None:
                opened = self._open()
                self._model, self._compute_type = opened.model, opened.compute_type
                self._first_session()

    def _forget(self):
        pass

    def _first_session(self):
        raise NotImplementedError
