"""A CTranslate2 Llama folder built by the real ctranslate2 package from the trained llama2.c model
stories260K, the way ct2-transformers-converter writes a Llama (CTranslate2's LlamaLoader).

    build/venv/bin/python tests/python/make_ct2_llama.py OUT_DIR [--interleave] [--quantization int8]

The weights come from <shared>/models/llama2c/stories260k/stories260K.bin (parsed by
tests/reference/llama2c_reference.py) and the vocabulary from tok512.bin. The spec is
TransformerDecoderModelSpec.from_config with LlamaLoader's settings: pre-norm RMSNorm (epsilon 1e-5,
llama2.c's), SwiGLU (activation SWISH, ffn_glu: linear_0 = w1 under the activation, linear_0_noact =
w3), rotary embeddings over the whole head (rotary_dim 0, base 10000), 4 key/value heads for 8 query
heads (grouped-query attention), no biases, no position table, unscaled embeddings, and the output
projection equal to the embeddings (CTranslate2 stores it as an alias).

Rotary layouts: by default rotary_interleave is False and Q/K rows are in the "rotate half" order of a
Hugging Face Llama, i.e. llama2.c's interleaved rows permuted as transformers' conversion script
does; with --interleave the rows stay in llama2.c's order and rotary_interleave is True.
Nothing is committed: tests write the folder into a temporary directory.
"""

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "reference"))

import llama2c_reference  # noqa: E402  (tests/reference, found through sys.path above)

STORIES = "models/llama2c/stories260k"


def rotate_half_rows(w, heads):
    """Interleaved RoPE rows (pairs 2j, 2j+1) of every head reordered into halves (j, j + hd/2), as
    transformers' convert_llama_weights_to_hf.py permutes Meta's q/k weights."""
    rows, cols = w.shape
    hd = rows // heads
    return w.reshape(heads, hd // 2, 2, cols).transpose(0, 2, 1, 3).reshape(rows, cols)


def sentencepiece_pieces(raw_pieces):
    """tok512.bin's pieces as a Hugging Face Llama tokenizer names them: llama2.c's export wrote
    '\\n<s>\\n' and '\\n</s>\\n' for the start and end tokens and ' ' for SentencePiece's '▁'."""
    specials = {b"\n<s>\n": "<s>", b"\n</s>\n": "</s>"}
    return [specials.get(p) or p.decode("utf-8").replace(" ", "\u2581") for p in raw_pieces]


def read_stories(shared):
    cfg, w = llama2c_reference.read_checkpoint(os.path.join(shared, STORIES, "stories260K.bin"))
    w = {name: value.astype(np.float32) for name, value in w.items()}  # exact: the file is float32
    raw, _ = llama2c_reference.read_tokenizer(os.path.join(shared, STORIES, "tok512.bin"), cfg["vocab"])
    return cfg, w, sentencepiece_pieces(raw)


def fill_layers(decoder, cfg, w, interleave):
    for i, layer in enumerate(decoder.layer):
        q, k = w["wq"][i], w["wk"][i]
        if not interleave:
            q, k = rotate_half_rows(q, cfg["heads"]), rotate_half_rows(k, cfg["kv_heads"])
        layer.self_attention.layer_norm.gamma = w["att_norm"][i]
        layer.self_attention.linear[0].weight = np.concatenate([q, k, w["wv"][i]])
        layer.self_attention.linear[1].weight = w["wo"][i]
        layer.ffn.layer_norm.gamma = w["ffn_norm"][i]
        layer.ffn.linear_0.weight = w["w1"][i]
        layer.ffn.linear_0_noact.weight = w["w3"][i]
        layer.ffn.linear_1.weight = w["w2"][i]


def build_spec(cfg, w, tokens, interleave, spec_options):
    from ctranslate2.specs import common_spec, transformer_spec

    options = dict(activation=common_spec.Activation.SWISH, pre_norm=True, ffn_glu=True, rms_norm=True, rotary_dim=0,
                   rotary_interleave=interleave, rotary_base=10000,
                   num_heads_kv=cfg["kv_heads"] if cfg["kv_heads"] != cfg["heads"] else None)
    options.update(spec_options)
    spec = transformer_spec.TransformerDecoderModelSpec.from_config(cfg["layers"], cfg["heads"], **options)
    decoder = spec.decoder
    decoder.scale_embeddings = False
    decoder.embeddings.weight = w["emb"]
    decoder.layer_norm.gamma = w["final_norm"]
    fill_layers(decoder, cfg, w, interleave)
    decoder.projection.weight = w["cls"].copy()  # CTranslate2 aliases it to the equal embeddings
    spec.register_vocabulary(tokens)
    spec.config.bos_token, spec.config.eos_token, spec.config.unk_token = "<s>", "</s>", "<unk>"
    spec.config.layer_norm_epsilon = 1e-5
    return spec


def write_ct2_llama(out_dir, shared, interleave=False, quantization=None, spec_options=None):
    """Writes the folder (model.bin, config.json, vocabulary.json) and returns its path.
    `spec_options` are more or other from_config arguments (tests of what heed refuses)."""
    cfg, w, tokens = read_stories(shared)
    spec = build_spec(cfg, w, tokens, interleave, spec_options or {})
    spec.validate()
    spec.optimize(quantization=quantization)
    os.makedirs(out_dir, exist_ok=True)
    spec.save(out_dir)
    return out_dir


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir")
    p.add_argument("--shared", default=llama2c_reference.default_shared_dir())
    p.add_argument("--interleave", action="store_true", help="rotary_interleave True, llama2.c's row order")
    p.add_argument("--quantization", default=None, help="CTranslate2's weight type (int8, float16, ...)")
    a = p.parse_args()
    print(write_ct2_llama(a.out_dir, a.shared, a.interleave, a.quantization))


if __name__ == "__main__":
    main()
