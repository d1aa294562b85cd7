"""Exports a checkpoint of train.py as a CTranslate2 model directory (model.bin in CTranslate2's
binary format, config.json, source_vocabulary.txt, target_vocabulary.txt), float32 weights.

  python export_ct2.py --checkpoint /tmp/numbers-en-de.pt --out demo/numbers-en-de

Needs the `ctranslate2` Python package (its spec API writes model.bin) and torch. The
vocabularies are written as text, one token per line, `<unk>` included as the last line.
"""

import argparse
import os
import shutil
import sys
import tempfile

import ctranslate2
import torch
from ctranslate2.specs import common_spec, transformer_spec

from ct2_transformer import Transformer


def set_linear(spec, linear):
    spec.weight = linear.weight.detach().numpy().copy()
    spec.bias = linear.bias.detach().numpy().copy()


def set_norm(spec, norm):
    spec.gamma = norm.weight.detach().numpy().copy()
    spec.beta = norm.bias.detach().numpy().copy()


def set_attention(spec, attention):
    set_norm(spec.layer_norm, attention.layer_norm)
    if attention.self_attention:
        set_linear(spec.linear[0], attention.linear_qkv)   # fused Q, K, V
        set_linear(spec.linear[1], attention.linear_out)
    else:
        set_linear(spec.linear[0], attention.linear_q)
        set_linear(spec.linear[1], attention.linear_kv)    # fused K, V
        set_linear(spec.linear[2], attention.linear_out)


def set_ffn(spec, ffn):
    set_norm(spec.layer_norm, ffn.layer_norm)
    set_linear(spec.linear_0, ffn.linear_0)
    set_linear(spec.linear_1, ffn.linear_1)


def build_spec(checkpoint):
    config = checkpoint["config"]
    model = Transformer(**config)
    model.load_state_dict(checkpoint["state_dict"])

    spec = transformer_spec.TransformerSpec.from_config(
        (config["encoder_layers"], config["decoder_layers"]), config["num_heads"],
        pre_norm=True, activation=common_spec.Activation.RELU)
    # Position encodings are left unset: CTranslate2 then generates its sinusoidal ones, the
    # same that ct2_transformer.sinusoidal_positions trained with.
    spec.encoder.embeddings[0].weight = model.src_embeddings.weight.detach().numpy().copy()
    spec.decoder.embeddings.weight = model.tgt_embeddings.weight.detach().numpy().copy()
    for layer_spec, layer in zip(spec.encoder.layer, model.encoder):
        set_attention(layer_spec.self_attention, layer.self_attention)
        set_ffn(layer_spec.ffn, layer.ffn)
    for layer_spec, layer in zip(spec.decoder.layer, model.decoder):
        set_attention(layer_spec.self_attention, layer.self_attention)
        set_attention(layer_spec.attention, layer.attention)
        set_ffn(layer_spec.ffn, layer.ffn)
    set_norm(spec.encoder.layer_norm, model.encoder_norm)
    set_norm(spec.decoder.layer_norm, model.decoder_norm)
    set_linear(spec.decoder.projection, model.projection)
    spec.config.layer_norm_epsilon = 1e-6
    spec.register_source_vocabulary(checkpoint["source_vocabulary"])
    spec.register_target_vocabulary(checkpoint["target_vocabulary"])
    return spec


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--out", required=True, help="model directory to (re)create")
    args = parser.parse_args()

    checkpoint = torch.load(args.checkpoint)
    spec = build_spec(checkpoint)
    spec.validate()
    spec.optimize(quantization=None)

    # spec.save writes JSON vocabularies; write them as plain text instead (one token a line),
    # the form most CTranslate2 model directories use and the easiest for a reader to inspect.
    with tempfile.TemporaryDirectory() as tmp:
        spec.save(tmp)
        if os.path.isdir(args.out):
            for name in ("model.bin", "config.json", "source_vocabulary.txt",
                         "target_vocabulary.txt"):
                if os.path.exists(os.path.join(args.out, name)):
                    os.remove(os.path.join(args.out, name))
        os.makedirs(args.out, exist_ok=True)
        shutil.copy(os.path.join(tmp, "model.bin"), args.out)
        shutil.copy(os.path.join(tmp, "config.json"), args.out)
    for side in ("source", "target"):
        with open(os.path.join(args.out, f"{side}_vocabulary.txt"), "w", encoding="utf-8") as f:
            for token in checkpoint[f"{side}_vocabulary"]:
                f.write(token + "\n")
    size = os.path.getsize(os.path.join(args.out, "model.bin"))
    print(f"exported {args.out} (model.bin {size} bytes, ctranslate2 {ctranslate2.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
