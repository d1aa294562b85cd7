"""POST /v1/chat/completions through the openai package: the assistant's answer, streamed and not,
equals /v1/completions' on the prompt text `heed generate --chat --chat-text` renders the same
messages to (that rendering equals Jinja's: tests/python/test_chat_templates.py), on
tests/fixtures/hf-llama with a ChatML chat_template written here in the format's published layout;
the fixture's random weights make bytes that are not UTF-8, which both endpoints write as U+FFFD.
A model without a chat format, or messages without content, are refused in OpenAI's error shape."""
import json
import os
import shutil

import openai
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHATML = ("{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Tell me a story."}]


@pytest.fixture(scope="module")
def chat_models(run, tmp_path_factory):
    folder = tmp_path_factory.mktemp("chat") / "hf-llama"
    shutil.copytree(os.path.join(ROOT, "tests/fixtures/hf-llama"), folder)
    with open(folder / "config.json") as f:
        config = json.load(f)
    config["max_position_embeddings"] = 256  # room for the chat's text (RoPE has no table to outgrow)
    with open(folder / "config.json", "w") as f:
        json.dump(config, f)
    plain = str(folder.parent / "plain.heed")
    run("convert", str(folder), "-o", plain, "--quiet")
    with open(folder / "tokenizer_config.json", "w") as f:
        json.dump({"chat_template": CHATML}, f)
    chat = str(folder.parent / "chat.heed")
    run("convert", str(folder), "-o", chat, "--quiet")
    return {"chat": chat, "plain": plain}


def test_chat_completions_equal_heed_generate_chat(start, chat_models, run):
    text = json.loads(run("generate", "-m", chat_models["chat"], "--chat", "--chat-text", stdin=json.dumps(MESSAGES) + "\n"))
    assert text.endswith("<|im_start|>assistant\n")
    server = start(["-m", chat_models["chat"], "-m", chat_models["plain"]])
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="unused")
    completion = client.completions.create(model="chat", prompt=text, max_tokens=16, temperature=0)
    expected = completion.choices[0].text
    assert expected
    whole = client.chat.completions.create(model="chat", messages=MESSAGES, max_tokens=16, temperature=0)
    assert whole.object == "chat.completion" and whole.choices[0].message.role == "assistant"
    assert whole.choices[0].message.content == expected
    assert whole.usage.prompt_tokens == completion.usage.prompt_tokens > 0
    stream = client.chat.completions.create(model="chat", messages=MESSAGES, max_tokens=16, temperature=0, stream=True)
    chunks = list(stream)
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == expected
    assert chunks[-1].choices[0].finish_reason in ("stop", "length")
    with pytest.raises(openai.BadRequestError, match="no chat template"):
        client.chat.completions.create(model="plain", messages=MESSAGES, max_tokens=4)
    with pytest.raises(openai.BadRequestError, match="messages"):
        client.chat.completions.create(model="chat", messages=[{"role": "user"}], max_tokens=4)
