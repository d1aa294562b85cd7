"""Clients heed did not write against `heed serve`: libretranslatepy and requests on LibreTranslate's
endpoints (answers equal to `heed translate`'s output), the openai package on /v1/embeddings (equal
to `heed embed`) and /v1/completions, streamed and not (equal to `heed generate`); LibreTranslate's
forms, multipart bodies and query strings; the openai package's models.retrieve, its errors for
parameters heed lacks, and max_tokens clamped."""
import json
import os
import subprocess
import zipfile

import numpy as np
import pytest
import openai
import requests
from libretranslatepy import LibreTranslateAPI

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SENTENCES = ["Hello world.", "The weather is nice today. I like it.", "How are you?"]


def cli_translations(run, model, lines, *flags):
    return run("translate", "-m", model, *flags, stdin="".join(l + "\n" for l in lines)).splitlines()


def test_libretranslatepy_translates_as_heed_translate(server, models, run):
    api = LibreTranslateAPI(server.url + "/")
    expected = cli_translations(run, models["argos"], SENTENCES)
    assert [api.translate(s, "en", "de") for s in SENTENCES] == expected
    assert api.languages() == [{"code": "en", "name": "English", "targets": ["de"]}]


def test_requests_json_list_and_form(server, models, run):
    expected = cli_translations(run, models["argos"], SENTENCES)
    r = requests.post(server.url + "/translate", json={"q": SENTENCES, "source": "en", "target": "de", "format": "text"})
    assert r.status_code == 200 and r.json() == {"translatedText": expected}
    r = requests.post(server.url + "/translate", data={"q": SENTENCES[1], "source": "en", "target": "de"})
    assert r.status_code == 200 and r.json() == {"translatedText": expected[1]}
    assert requests.get(server.url + "/languages").json()[0]["targets"] == ["de"]
    assert requests.post(server.url + "/detect", data={"q": "Hello"}).status_code == 501


def test_alternatives_are_the_n_best(server, models, run):
    # One sentence: heed translate's n-best lines 'I ||| HYPOTHESIS ||| SCORE' with the beam the server uses.
    lines = cli_translations(run, models["argos"], ["Hello world."], "--beam", "3", "--n-best", "3")
    hypotheses = [l.split(" ||| ")[1] for l in lines]
    r = requests.post(server.url + "/translate", json={"q": "Hello world.", "source": "en", "target": "de", "alternatives": 2})
    assert r.json() == {"translatedText": hypotheses[0], "alternatives": hypotheses[1:]}
    r = requests.post(server.url + "/translate", json={"q": ["Hello world."], "source": "en", "target": "de", "alternatives": 2})
    assert r.json() == {"translatedText": hypotheses[:1], "alternatives": [hypotheses[1:]]}


def test_openai_embeddings_equal_heed_embed(server, models, run):
    texts = ["A cat sat on the mat.", "Ein Satz."]
    expected = [json.loads(l)["embedding"] for l in run("embed", "-m", models["bert"], stdin="\n".join(texts) + "\n").splitlines()]
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    got = client.embeddings.create(model="bert", input=texts)  # the client asks for base64 floats
    # heed embed prints 9 significant digits, which read back as the same float32.
    expected = np.array(expected, dtype=np.float32)
    assert np.array_equal(np.array([d.embedding for d in got.data], dtype=np.float32), expected)
    got = client.embeddings.create(model="bert", input=texts[0], encoding_format="float")
    assert np.array_equal(np.array(got.data[0].embedding, dtype=np.float32), expected[0]) and got.usage.prompt_tokens > 0
    assert sorted(m.id for m in client.models.list()) == ["argos", "bert", "stories"]


def test_openai_completions_streamed_equal_heed_generate(server, models, run):
    prompt = "Once upon a time"
    expected = run("generate", "-m", models["stories"], "--prompt", prompt, "--max-len", "24").rstrip("\n")
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    stream = client.completions.create(model="stories", prompt=prompt, max_tokens=24, temperature=0, stream=True)
    chunks = list(stream)
    assert len(chunks) > 2 and "".join(c.choices[0].text for c in chunks) == expected
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")
    whole = client.completions.create(model="stories", prompt=prompt, max_tokens=24, temperature=0)
    assert whole.choices[0].text == expected and whole.usage.completion_tokens > 0


def test_request_log_has_one_line_per_request(server):
    requests.get(server.url + "/health")
    lines = [l for l in server.log_lines() if "endpoint" in l]
    assert lines and all(set(l) >= {"time", "endpoint", "status", "tokens", "ms"} for l in lines)
    assert not any("text" in l for l in lines)  # no --log-text
    assert any(l["endpoint"] == "POST /translate" and l["tokens"] > 0 and l["model"] == "argos" for l in lines)


def test_use_vmap_translates_as_heed_translate_use_vmap(heed_cli, start, models, run, tmp_path):
    """heed serve --use-vmap: libretranslatepy gets `heed translate --use-vmap`'s output; a model
    without a map is refused at start."""
    with zipfile.ZipFile(os.path.join(ROOT, "tests/fixtures/argos/tiny-en-de.argosmodel")) as z:
        vocabulary = json.loads(z.read("translate-en_de-1_0/model/shared_vocabulary.json"))
    vmap = tmp_path / "vmap.txt"
    vmap.write_text("\t" + " ".join(vocabulary[4:40]) + "\n", encoding="utf-8")
    model = str(tmp_path / "argos-vmap.heed")
    run("convert", os.path.join(ROOT, "tests/fixtures/argos/tiny-en-de.argosmodel"), "-o", model, "--vmap", str(vmap),
        "--quiet")
    expected = cli_translations(run, model, SENTENCES, "--use-vmap")
    assert expected != cli_translations(run, model, SENTENCES)
    api = LibreTranslateAPI(start(["-m", model, "--use-vmap"]).url + "/")
    assert [api.translate(s, "en", "de") for s in SENTENCES] == expected
    refused = subprocess.run([heed_cli, "serve", "--port", "0", "--use-vmap", "-m", models["argos"]],
                             capture_output=True, timeout=60)
    assert refused.returncode == 1 and b"no vocabulary map" in refused.stderr


def test_forms_multipart_and_query_as_libretranslate(server, models, run):
    """LibreTranslate reads `request.values` when the body is not JSON: the query string, then a
    form, url-encoded or multipart; form texts get LF line breaks (its `splitlines`)."""
    lines = SENTENCES * 2
    expected = cli_translations(run, models["argos"], lines)
    # A field LibreTranslate ignores makes the body 12 KB: above the 8 KB httplib's own form reader allows.
    fields = {"q": "\r\n".join(lines) + "\r\n", "source": "en", "target": "de", "unused": "x" * 12000}
    r = requests.post(server.url + "/translate", data=fields)
    assert r.status_code == 200 and r.json() == {"translatedText": "\n".join(expected)}, r.text[:200]
    multipart = {key: (None, value) for key, value in fields.items()}
    multipart["file"] = ("notes.txt", b"a file part is not a field")
    r = requests.post(server.url + "/translate", files=multipart)
    assert r.status_code == 200 and r.json() == {"translatedText": "\n".join(expected)}, r.text[:200]
    r = requests.post(server.url + "/translate", params={"q": SENTENCES[0], "source": "en", "target": "de"})
    assert r.status_code == 200 and r.json() == {"translatedText": expected[0]}
    # The query string comes first, as Werkzeug's CombinedMultiDict([args, form]).
    r = requests.post(server.url + "/translate", params={"q": SENTENCES[2]}, files={"q": (None, SENTENCES[0]),
                      "source": (None, "en"), "target": (None, "de"), "alternatives": (None, "1")})
    assert r.status_code == 200 and r.json()["translatedText"] == expected[2] and len(r.json()["alternatives"]) == 1


def test_openai_retrieves_a_model(server):
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    model = client.models.retrieve("bert")
    assert (model.id, model.object, model.owned_by, model.created) == ("bert", "model", "heed", 0)
    try:
        client.models.retrieve("nope")
        assert False, "an unknown model was found"
    except openai.NotFoundError as e:
        assert e.code == "model_not_found" and e.param == "model" and "nope" in e.message


COMPLETION = {"model": "stories", "prompt": "Once upon a time", "max_tokens": 8, "temperature": 0}


@pytest.mark.parametrize("param,value", [("echo", True), ("logprobs", 1), ("best_of", 2), ("suffix", "The end."),
                                         ("logit_bias", {"50": -100}), ("presence_penalty", 0.5),
                                         ("frequency_penalty", -0.5), ("n", 2)])
def test_openai_parameters_heed_lacks_are_refused(server, param, value):
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(**COMPLETION, **{param: value})
    assert e.value.param == param and param in e.value.message


def test_openai_default_parameter_values_are_accepted(server):
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    plain = client.completions.create(**COMPLETION).choices[0].text
    defaults = client.completions.create(**COMPLETION, echo=False, logprobs=None, best_of=1, suffix=None, logit_bias={},
                                         presence_penalty=0, frequency_penalty=0.0, n=1)
    assert defaults.choices[0].text == plain and plain
    size = len(client.embeddings.create(model="bert", input="A cat.", encoding_format="float").data[0].embedding)
    assert len(client.embeddings.create(model="bert", input="A cat.", dimensions=size).data[0].embedding) == size
    with pytest.raises(openai.BadRequestError) as e:
        client.embeddings.create(model="bert", input="A cat.", dimensions=size // 2)
    assert e.value.param == "dimensions"


def test_openai_max_tokens_above_the_limit_is_clamped(start, models):
    server = start(["-m", models["stories"], "--max-len", "12"])
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    clamped = client.completions.create(**dict(COMPLETION, max_tokens=100000))
    at_limit = client.completions.create(**dict(COMPLETION, max_tokens=12))
    assert clamped.choices[0].text == at_limit.choices[0].text and clamped.usage.completion_tokens == 12
    assert clamped.choices[0].finish_reason == "length"
