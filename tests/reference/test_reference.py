#!/usr/bin/python3
"""Self-tests of the NumPy reference (run: /usr/bin/python3 -m unittest discover -s tests/reference).

Model-dependent tests fail with a clear message when ../shared/models/ct2 is missing.
"""

import json
import math
import os
import struct
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ct2_model  # noqa: E402
import ct2_transformer  # noqa: E402
import check_known_outputs  # noqa: E402
import make_aren_fixtures  # noqa: E402

SHARED = os.environ.get("HEED_SHARED_DIR", check_known_outputs.default_shared_dir())
HAVE_MODELS = os.path.isdir(os.path.join(SHARED, "models", "ct2", "aren-transliteration"))
FIXTURES = os.path.normpath(os.path.join(HERE, "..", "fixtures", "aren"))


# ---------------------------------------------------------------------------------
# A tiny model.bin writer, written from the layout description, used to exercise
# every binary version of the parser.

def _string(text):
    raw = text.encode("utf-8") + b"\0"
    return struct.pack("<H", len(raw)) + raw


_TYPE_IDS = {"float32": 0, "int8": 1, "int16": 2, "int32": 3, "float16": 4, "bfloat16": 5}


def write_model_bin(version, variables, aliases=(), spec="TestSpec", revision=3):
    """variables: list of (name, dtype name, numpy array of raw stored values)."""
    out = struct.pack("<I", version)
    if version >= 2:
        out += _string(spec) + struct.pack("<I", revision)
    out += struct.pack("<I", len(variables))
    for name, dtype, array in variables:
        out += _string(name) + struct.pack("<B", array.ndim)
        out += b"".join(struct.pack("<I", d) for d in array.shape)
        if dtype == "bfloat16":
            raw = (np.asarray(array, dtype=np.float32).view(np.uint32) >> 16) \
                .astype("<u2").tobytes()
        else:
            raw = np.asarray(array).astype({"float32": "<f4", "int8": "i1", "int16": "<i2",
                                            "int32": "<i4", "float16": "<f2"}[dtype]).tobytes()
        if version >= 4:
            out += struct.pack("<BI", _TYPE_IDS[dtype], len(raw))
        else:
            item = {"float32": 4, "int16": 2, "int8": 1}[dtype]
            out += struct.pack("<BI", item, len(raw) // item)
        out += raw
    if version >= 3:
        out += struct.pack("<I", len(aliases))
        for alias, target in aliases:
            out += _string(alias) + _string(target)
    return out


class ParserTest(unittest.TestCase):
    def test_all_binary_versions_round_trip(self):
        weight = np.array([[1.0, -2.5, 3.25], [0.0, 4.0, -8.0]], dtype=np.float32)
        q = np.array([[127, -64, 3], [-127, 0, 1]], dtype=np.int8)
        scale = np.array([127.0 / 2.0, 127.0 / 4.0], dtype=np.float32)
        for version in range(1, 7):
            variables = [("a/weight", "float32", weight), ("b/weight", "int8", q),
                         ("b/weight_scale", "float32", scale)]
            aliases = [("c/weight", "b/weight")] if version >= 3 else []
            model = ct2_model.parse_model_bytes(write_model_bin(version, variables, aliases))
            self.assertEqual(model.binary_version, version)
            self.assertEqual(model.spec_name, "TestSpec" if version >= 2 else "")
            np.testing.assert_array_equal(model.get_float("a/weight"), weight)
            expected = q.astype(np.float32) / scale[:, None]
            np.testing.assert_allclose(model.get_float("b/weight"), expected, rtol=1e-7)
            self.assertEqual(model.stored_dtypes["b/weight"], "int8")
            if version >= 3:
                np.testing.assert_allclose(model.get_float("c/weight"), expected, rtol=1e-7)

    def test_half_precision_and_int16(self):
        values = np.array([1.5, -0.25, 65504.0], dtype=np.float32)
        model = ct2_model.parse_model_bytes(write_model_bin(6, [
            ("h", "float16", values.astype(np.float16)),
            ("bf", "bfloat16", np.array([1.0, -3.0, 0.15625], dtype=np.float32)),
            ("w/weight", "int16", np.array([[1000, -2000]], dtype=np.int16)),
            ("w/weight_scale", "float32", np.array(1000.0, dtype=np.float32)),
            ("n", "int32", np.array(7, dtype=np.int32)),
        ]))
        np.testing.assert_array_equal(model.get_float("h"), values)
        np.testing.assert_array_equal(model.get_float("bf"), [1.0, -3.0, 0.15625])
        np.testing.assert_array_equal(model.get_float("w/weight"), [[1.0, -2.0]])
        self.assertEqual(model.scalar("n"), 7)

    def test_malformed_files_raise(self):
        good = write_model_bin(6, [("x", "float32", np.ones(4, dtype=np.float32))])
        with self.assertRaises(ct2_model.ModelFormatError):
            ct2_model.parse_model_bytes(good[:-3])
        with self.assertRaises(ct2_model.ModelFormatError):
            ct2_model.parse_model_bytes(good + b"\0")
        with self.assertRaises(ct2_model.ModelFormatError):
            ct2_model.parse_model_bytes(struct.pack("<I", 99) + good[4:])
        with self.assertRaises(ct2_model.ModelFormatError):
            ct2_model.parse_model_bytes(write_model_bin(
                6, [("q/weight", "int8", np.ones((2, 2), dtype=np.int8))]))\
                .get_float("q/weight")


class NumericsTest(unittest.TestCase):
    def test_quantize_rows_rounds_half_away_from_zero(self):
        x = np.array([[127.0, 63.5, -63.5, 0.49, -2.5], [0.0, 0.0, 0.0, 0.0, 0.0]])
        q, scale = ct2_transformer.quantize_rows(x)
        self.assertEqual(scale[0, 0], 1.0)
        np.testing.assert_array_equal(q[0], [127, 64, -64, 0, -3])
        np.testing.assert_array_equal(q[1], [0, 0, 0, 0, 0])

    def test_position_encoding_layout(self):
        depth = 8
        table = ct2_transformer.sinusoidal_position_encoding(3, depth)
        increment = math.log(10000.0) / (depth / 2 - 1)
        for t in range(3):
            position = t + 1
            for i in range(depth // 2):
                frequency = math.exp(-increment * i)
                self.assertAlmostEqual(table[t, i], math.sin(position * frequency), places=12)
                self.assertAlmostEqual(table[t, depth // 2 + i],
                                       math.cos(position * frequency), places=12)

    def test_layer_norm(self):
        x = np.array([[1.0, 2.0, 3.0, 6.0]])
        mean, var = 3.0, (4 + 1 + 0 + 9) / 4
        expected = (x - mean) / math.sqrt(var + 1e-5) * 2.0 + 0.5
        np.testing.assert_allclose(ct2_transformer.layer_norm(x, 2.0, 0.5, 1e-5), expected)

    def test_log_softmax_handles_masked_entries(self):
        out = ct2_transformer.log_softmax(np.array([0.0, -np.inf, math.log(3.0)]))
        np.testing.assert_allclose(np.exp(out), [0.25, 0.0, 0.75])


class ModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not HAVE_MODELS:
            raise AssertionError("shared models not found at %s: these tests need the shared models "
                                 "folder beside the project (../shared) or HEED_SHARED_DIR" % SHARED)
        cls.model, cls.source, cls.target = check_known_outputs.load(
            SHARED, "aren-transliteration")
        cls.reference = ct2_transformer.Transformer(cls.model)

    def test_known_outputs(self):
        for source_text, expected in check_known_outputs.KNOWN:
            ids = self.source.to_ids(source_text.split())
            self.assertEqual(" ".join(self.target.to_tokens(self.reference.greedy(ids)[0])),
                             expected)
            best = self.reference.beam_search(ids, beam_size=4)[0][0]
            self.assertEqual(" ".join(self.target.to_tokens(best)), expected)

    def test_score_matches_greedy_after_first_step(self):
        # Greedy masks </s> at step 0 only, so later steps must agree with score().
        ids = self.source.to_ids("م ح م د".split())
        output, log_probs, _ = self.reference.greedy(ids)
        scored = self.reference.score(ids, output)
        np.testing.assert_allclose(log_probs[1:], scored[1:], atol=1e-12)
        self.assertGreater(log_probs[0], scored[0])

    def test_beam_of_one_is_greedy(self):
        ids = self.source.to_ids("ل آ ء غ ی و أ ف ط".split())
        self.assertEqual(self.reference.beam_search(ids, beam_size=1)[0][0],
                         self.reference.greedy(ids)[0])

    def test_first_step_is_a_distribution(self):
        ids = self.source.to_ids("آ ز ا".split())
        log_probs = self.reference.first_step_log_probs(ids)
        self.assertEqual(log_probs.shape, (len(self.target),))
        self.assertAlmostEqual(float(np.sum(np.exp(log_probs))), 1.0, places=12)

    def test_committed_fixtures_are_current(self):
        for file_name, model_name, int8_activations, description in \
                make_aren_fixtures.MODEL_SETS:
            with open(os.path.join(FIXTURES, file_name), encoding="utf-8") as handle:
                committed = json.load(handle)
            fresh = json.loads(json.dumps(make_aren_fixtures.make_fixture(
                SHARED, file_name, model_name, int8_activations, description)))
            self._assert_close(committed, fresh, file_name)

    def _assert_close(self, committed, fresh, where):
        """Structural equality; floats may differ by BLAS summation order only."""
        message = "%s is stale: rerun make_aren_fixtures.py" % where
        if isinstance(committed, dict):
            self.assertIsInstance(fresh, dict, message)
            self.assertEqual(sorted(committed), sorted(fresh), message)
            for key in committed:
                self._assert_close(committed[key], fresh[key], where + "." + key)
        elif isinstance(committed, list):
            self.assertIsInstance(fresh, list, message)
            self.assertEqual(len(committed), len(fresh), message)
            for index, (a, b) in enumerate(zip(committed, fresh)):
                self._assert_close(a, b, "%s[%d]" % (where, index))
        elif isinstance(committed, float) and not isinstance(committed, bool):
            self.assertAlmostEqual(committed, fresh, delta=1e-9, msg=message)
        else:
            self.assertEqual(committed, fresh, message)


if __name__ == "__main__":
    unittest.main()
