"""One text path: the same paragraphs (several sentences, abbreviations, blank lines) translate to
byte-identical text through `heed translate`, `heed serve`'s /translate, the C API's
heed_translate_text (libheed.so.1 through ctypes) and Python's Translator.translate_text, with each
front end's defaults (beam 2). The expected text is computed independently of the splitter: the
sentences, listed here by hand as a reader splits them, translated one per line with
`heed translate --no-split` and put back per line. Two models: the Argos fixture (SentencePiece
inside, source language en: sentences are split) and aren-transliteration from ../shared (a
trained model reading space-separated tokens: each line is one sentence)."""
import ctypes
import importlib.util
import os

import pytest
import requests

import heed

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Lines of the English text, each as a reader splits it into sentences (a blank line has none).
ENGLISH = [
    ["Mr. Smith met Dr. Jones at 3.30 p.m. yesterday.", "They talked about the U.S. economy, e.g. prices."],
    [],
    ["It cost 42 euros.", "\"Why?\" she asked.", "J. R. R. Tolkien wrote it."],
    [],
    ["The end."],
]
# aren-transliteration reads Arabic letters as tokens; its own tests know these two names.
ARABIC = [["\u0622 \u062a \u0632 \u0645 \u0648 \u0646"], [], ["\u0622 \u0632 \u0627"]]


def _serve_support():
    """tests/serve/conftest.py's Server (a `heed serve` on a free loopback port), loaded by path."""
    spec = importlib.util.spec_from_file_location("serve_support", os.path.join(ROOT, "tests/serve/conftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Server


def _libheed(heed_cli):
    path = os.environ.get("HEED_LIB", os.path.join(os.path.dirname(os.path.dirname(heed_cli)), "runtime/libheed.so.1"))
    if not os.path.exists(path):
        pytest.fail("libheed.so.1 is missing: set HEED_LIB (expected at %s)" % path)
    lib = ctypes.CDLL(path)
    lib.heed_model_open.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_size_t]
    lib.heed_translator_create.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.heed_translate_text_with_options.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_char_p,
                                                     ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]
    lib.heed_translator_last_error.restype = ctypes.c_char_p
    lib.heed_translator_last_error.argtypes = [ctypes.c_void_p]
    lib.heed_decode_options_init.argtypes = [ctypes.c_void_p]
    for free in (lib.heed_translator_free, lib.heed_model_free):
        free.argtypes = [ctypes.c_void_p]
    return lib


def c_api_text(lib, model, text):
    """heed_translate_text_with_options with heed_decode_options_init's defaults (CTranslate2's:
    beam 2, min length 1), the options struct filled by the library itself."""
    handle, translator, error = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.create_string_buffer(512)
    assert lib.heed_model_open(model.encode(), ctypes.byref(handle), error, len(error)) == 0, error.value
    try:
        assert lib.heed_translator_create(handle, None, ctypes.byref(translator)) == 0
        options = ctypes.create_string_buffer(1024)  # larger than any heed_decode_options
        lib.heed_decode_options_init(options)
        out, length = ctypes.create_string_buffer(1 << 16), ctypes.c_size_t()
        status = lib.heed_translate_text_with_options(translator, text.encode(), options, out, len(out),
                                                      ctypes.byref(length))
        assert status == 0, lib.heed_translator_last_error(translator)
        return out.raw[:length.value].decode("utf-8")
    finally:
        lib.heed_translator_free(translator)
        lib.heed_model_free(handle)


def expected_text(run, model, lines):
    """Each sentence translated alone (`heed translate --no-split`), joined by one space per line."""
    sentences = [s for line in lines for s in line]
    out = run("translate", "-m", model, "--no-split", stdin="".join(s + "\n" for s in sentences)).split("\n")[:-1]
    assert len(out) == len(sentences)
    text, k = [], 0
    for line in lines:
        text.append(" ".join(t for t in out[k:k + len(line)] if t))
        k += len(line)
    return "\n".join(text)


def every_front_end(heed_cli, run, model, text, lang, tmp_path):
    """The text's translation by each front end, by name."""
    server = _serve_support()(heed_cli, ["-m", model, "--lang", lang], str(tmp_path / "serve.log"))
    try:
        r = requests.post(server.url + "/translate", json={"q": text, "source": lang.split("-")[0],
                                                           "target": lang.split("-")[1], "format": "text"})
        assert r.status_code == 200, r.text
        served = r.json()["translatedText"]
    finally:
        server.stop()
    cli = run("translate", "-m", model, stdin=text + "\n")
    assert cli.endswith("\n")
    return {"heed translate": cli[:-1], "heed serve /translate": served,
            "heed_translate_text": c_api_text(_libheed(heed_cli), model, text),
            "Python translate_text": heed.Translator(model).translate_text([text])[0]}


def check_front_ends(got, want):
    for name, text in got.items():
        assert text == want, "%s differs:\n%r\nwanted\n%r" % (name, text, want)


def test_text_is_the_same_through_every_front_end(heed_cli, run, tmp_path):
    model = str(tmp_path / "argos.heed")
    run("convert", os.path.join(ROOT, "tests/fixtures/argos/tiny-en-de.argosmodel"), "-o", model, "--quiet")
    text = "\n".join(" ".join(line) for line in ENGLISH)
    want = expected_text(run, model, ENGLISH)
    assert want.split("\n")[1] == "" and want.split("\n")[0] != ""
    check_front_ends(every_front_end(heed_cli, run, model, text, "en-de", tmp_path), want)


def test_token_lines_are_the_same_through_every_front_end(heed_cli, run, shared, tmp_path):
    model = str(tmp_path / "aren.heed")
    run("convert", os.path.join(shared, "models/ct2/aren-transliteration"), "-o", model, "--quiet")
    want = expected_text(run, model, ARABIC)
    assert want == "a t z m o n\n\na z z a"  # the model's own tests' translations
    text = "\n".join(" ".join(line) for line in ARABIC)
    check_front_ends(every_front_end(heed_cli, run, model, text, "ar-en", tmp_path), want)
