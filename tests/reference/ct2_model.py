"""Self-contained reader for CTranslate2 ``model.bin`` files (binary versions 1..6).

This is part of heed's *independent* NumPy reference: it was written from the
published file layout, not from heed's C++ converter, so that the two can check
each other.

Layout (all integers little-endian):

    uint32  binary_version                      (1..6)
    if version >= 2:
        string  spec_name                       (uint16 length incl. NUL, bytes, NUL)
        uint32  spec_revision
    uint32  variable_count
    repeated variable_count times:
        string  name
        uint8   rank
        uint32  dims[rank]
        if version >= 4:
            uint8   dtype id                    (0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16)
            uint32  byte_count
        else:
            uint8   item_size                   (4 -> f32, 2 -> i16, 1 -> i8)
            uint32  element_count
        bytes   data
    if version >= 3:
        uint32  alias_count
        repeated: string alias, string target_name

Quantized weights follow CTranslate2's convention: ``name`` holds the integers and
``name + "_scale"`` holds the multiplier that was applied before rounding, so the
real value is ``q / scale`` (one scale per output row for int8, one global scale
for int16).
"""

import os
import struct

import numpy as np

MAX_BINARY_VERSION = 6

# dtype ids of binary version >= 4, in CTranslate2's DataType order.
_DTYPE_BY_ID = {
    0: "float32",
    1: "int8",
    2: "int16",
    3: "int32",
    4: "float16",
    5: "bfloat16",
}

# Binary versions < 4 only stored the item width.
_DTYPE_BY_ITEM_SIZE = {4: "float32", 2: "int16", 1: "int8"}

_ITEM_SIZE = {"float32": 4, "int8": 1, "int16": 2, "int32": 4, "float16": 2, "bfloat16": 2}


class ModelFormatError(ValueError):
    """Raised when a model.bin file is malformed or uses an unknown feature."""


class _Reader:
    def __init__(self, data):
        self.data = data
        self.offset = 0

    def take(self, size, what):
        if size < 0 or self.offset + size > len(self.data):
            raise ModelFormatError(
                "truncated model.bin: need %d bytes for %s at offset %d (file has %d)"
                % (size, what, self.offset, len(self.data)))
        chunk = self.data[self.offset:self.offset + size]
        self.offset += size
        return chunk

    def scalar(self, fmt, what):
        size = struct.calcsize("<" + fmt)
        return struct.unpack("<" + fmt, self.take(size, what))[0]

    def string(self, what):
        length = self.scalar("H", what + " length")
        raw = self.take(length, what)
        # The stored length includes the terminating NUL.
        if length == 0 or raw[-1:] != b"\0":
            raise ModelFormatError("string %s at offset %d is not NUL-terminated"
                                   % (what, self.offset - length))
        return raw[:-1].decode("utf-8")


def _raw_to_array(raw, dtype, shape):
    """Converts stored bytes to a NumPy array with the stored (integer or float) type."""
    if dtype == "bfloat16":
        # bfloat16 is the upper half of a float32.
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        array = bits.view(np.float32)
    else:
        np_dtype = {"float32": "<f4", "int8": "i1", "int16": "<i2", "int32": "<i4",
                    "float16": "<f2"}[dtype]
        array = np.frombuffer(raw, dtype=np_dtype)
    return array.reshape(shape)


class CT2Model:
    """All variables of one model.bin, with aliases resolved.

    ``variables`` maps a name to a NumPy array holding the stored values
    (int8/int16 stay integers; use :meth:`get_float` for real values).
    ``stored_dtypes`` maps a name to the stored type name.
    """

    def __init__(self, binary_version, spec_name, spec_revision, variables, stored_dtypes,
                 aliases):
        self.binary_version = binary_version
        self.spec_name = spec_name
        self.spec_revision = spec_revision
        self.variables = variables
        self.stored_dtypes = stored_dtypes
        self.aliases = aliases

    def has(self, name):
        return name in self.variables

    def raw(self, name):
        if name not in self.variables:
            raise KeyError("variable %s not found in model" % name)
        return self.variables[name]

    def is_quantized(self, name):
        return self.stored_dtypes.get(name) in ("int8", "int16")

    def get_float(self, name):
        """Returns the real (dequantized, float32) value of a variable.

        int8/int16 values are divided by ``name_scale`` (per row when the scale is a
        vector, globally when it is a scalar); float16/bfloat16 are widened.
        """
        value = self.raw(name)
        dtype = self.stored_dtypes[name]
        if dtype in ("int8", "int16"):
            scale_name = name + "_scale"
            if scale_name not in self.variables:
                raise ModelFormatError("quantized variable %s has no %s" % (name, scale_name))
            scale = self.get_float(scale_name).astype(np.float32)
            q = value.astype(np.float32)
            if scale.ndim == 0 or scale.size == 1:
                return q / scale.reshape(())
            if scale.shape[0] != q.shape[0]:
                raise ModelFormatError("scale %s has %d entries but %s has %d rows"
                                       % (scale_name, scale.shape[0], name, q.shape[0]))
            return q / scale.reshape((-1,) + (1,) * (q.ndim - 1))
        if dtype == "int32":
            return value.astype(np.float32)
        return value.astype(np.float32)

    def scalar(self, name, default=None):
        """Returns a rank-0 attribute as a Python number, or ``default`` when absent."""
        if name not in self.variables:
            return default
        return self.variables[name].reshape(-1)[0].item()


def parse_model_bytes(data):
    reader = _Reader(data)
    version = reader.scalar("I", "binary version")
    if version < 1 or version > MAX_BINARY_VERSION:
        raise ModelFormatError("unsupported CTranslate2 binary version %d (supported: 1..%d)"
                               % (version, MAX_BINARY_VERSION))
    spec_name = ""
    spec_revision = 1
    if version >= 2:
        spec_name = reader.string("spec name")
        spec_revision = reader.scalar("I", "spec revision")

    count = reader.scalar("I", "variable count")
    variables = {}
    stored_dtypes = {}
    for index in range(count):
        name = reader.string("variable %d name" % index)
        rank = reader.scalar("B", name + " rank")
        shape = tuple(reader.scalar("I", name + " dim") for _ in range(rank))
        if version >= 4:
            type_id = reader.scalar("B", name + " dtype")
            if type_id not in _DTYPE_BY_ID:
                raise ModelFormatError("variable %s has unknown dtype id %d" % (name, type_id))
            dtype = _DTYPE_BY_ID[type_id]
            num_bytes = reader.scalar("I", name + " byte count")
        else:
            item_size = reader.scalar("B", name + " item size")
            if item_size not in _DTYPE_BY_ITEM_SIZE:
                raise ModelFormatError("variable %s has unknown item size %d" % (name, item_size))
            dtype = _DTYPE_BY_ITEM_SIZE[item_size]
            num_bytes = reader.scalar("I", name + " element count") * item_size
        expected = int(np.prod(shape, dtype=np.int64)) * _ITEM_SIZE[dtype]
        if num_bytes != expected:
            raise ModelFormatError("variable %s: %d bytes stored but shape %s of %s needs %d"
                                   % (name, num_bytes, shape, dtype, expected))
        raw = reader.take(num_bytes, name + " data")
        variables[name] = _raw_to_array(raw, dtype, shape)
        stored_dtypes[name] = dtype

    aliases = {}
    if version >= 3:
        alias_count = reader.scalar("I", "alias count")
        for _ in range(alias_count):
            alias = reader.string("alias")
            target = reader.string("alias target")
            aliases[alias] = target
        for alias, target in aliases.items():
            # Missing targets are ignored, as CTranslate2 does.
            if target in variables:
                variables[alias] = variables[target]
                stored_dtypes[alias] = stored_dtypes[target]
            if target + "_scale" in variables:
                variables[alias + "_scale"] = variables[target + "_scale"]
                stored_dtypes[alias + "_scale"] = stored_dtypes[target + "_scale"]

    if reader.offset != len(data):
        raise ModelFormatError("%d trailing bytes after the last record"
                               % (len(data) - reader.offset))
    return CT2Model(version, spec_name, spec_revision, variables, stored_dtypes, aliases)


def load_model(model_dir_or_file):
    path = model_dir_or_file
    if os.path.isdir(path):
        path = os.path.join(path, "model.bin")
    with open(path, "rb") as handle:
        return parse_model_bytes(handle.read())


def load_vocabulary(path, unk_token="<unk>"):
    """Reads a one-token-per-line vocabulary; appends ``unk_token`` when absent.

    Returns the list of tokens (index = id).
    """
    # Iterating over lines means a final newline does not create an empty token.
    with open(path, "r", encoding="utf-8") as handle:
        tokens = [line.rstrip("\r\n") for line in handle]
    if unk_token not in tokens:
        tokens.append(unk_token)
    return tokens


class Vocabulary:
    def __init__(self, tokens, unk_token="<unk>"):
        self.tokens = list(tokens)
        self.ids = {}
        for index, token in enumerate(self.tokens):
            # The first occurrence wins for duplicated lines.
            self.ids.setdefault(token, index)
        self.unk_id = self.ids[unk_token]

    def __len__(self):
        return len(self.tokens)

    def to_ids(self, tokens):
        return [self.ids.get(token, self.unk_id) for token in tokens]

    def to_tokens(self, ids):
        return [self.tokens[i] for i in ids]


def load_vocabulary_object(path, unk_token="<unk>"):
    return Vocabulary(load_vocabulary(path, unk_token), unk_token)
