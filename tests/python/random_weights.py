"""Random model weights the tests and the record scripts rebuild identically without torch: numpy's
legacy RandomState (the same numbers on every numpy version) drawn in a fixed order, written as
float32 safetensors."""
import json
import struct

import numpy as np


class RandomTensors:
    """Tensors by name, each drawn from one RandomState(seed) in the order they are asked for."""

    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)
        self.tensors = {}

    def normal(self, name, shape, scale):
        self.tensors[name] = self.rng.standard_normal(shape) * scale

    def norm(self, name, d):
        """A LayerNorm: weight near 1, small bias."""
        self.tensors[name + ".weight"] = 1.0 + self.rng.standard_normal(d) * 0.1
        self.tensors[name + ".bias"] = self.rng.standard_normal(d) * 0.1

    def linear(self, name, rows, cols):
        """A Linear [rows, cols] scaled so activations keep their size, small bias."""
        self.tensors[name + ".weight"] = self.rng.standard_normal((rows, cols)) / np.sqrt(cols)
        self.tensors[name + ".bias"] = self.rng.standard_normal(rows) * 0.1

    def float32(self):
        return {k: np.asarray(a, dtype=np.float32) for k, a in self.tensors.items()}


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, array in tensors.items():
        data = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(array.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
