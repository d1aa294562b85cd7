"""An MPNet sentence-transformers folder built the same way by test_mpnet_embed.py (without torch)
and by record_mpnet.py (which runs sentence-transformers on it): all-mpnet-base-v2's layout
(config.json with model_type mpnet, model.safetensors, vocab.txt and tokenizer.json, modules.json,
1_Pooling with mean pooling, 2_Normalize, sentence_bert_config.json) at a small size. The
vocabulary is the hf-bert fixture's WordPiece vocab.txt laid out as MPNet's is (<s> <pad> </s>
<unk>, BERT's entries, <mask> last; [UNK] is the unknown token), the tokenizer.json is what
transformers' MPNetConverter makes of it (BertNormalizer lowercasing, BertPreTokenizer, WordPiece,
<s> $A </s>), and the weights are MPNetModel's tensors drawn from numpy's legacy RandomState (the
same numbers on every numpy version)."""
import json
import os

from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from random_weights import RandomTensors, write_safetensors

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BERT_VOCAB = os.path.join(ROOT, "tests/fixtures/hf-bert/model/vocab.txt")
MAX_SEQ_LENGTH = 320  # above 128 tokens, so the buckets' logarithmic range is used

CONFIG = {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
          "max_position_embeddings": 514, "relative_attention_num_buckets": 32, "pad_token_id": 1,
          "bos_token_id": 0, "eos_token_id": 2, "layer_norm_eps": 1e-5, "hidden_act": "gelu",
          "model_type": "mpnet", "architectures": ["MPNetForMaskedLM"], "initializer_range": 0.02}

TOKENIZER_CONFIG = {"tokenizer_class": "MPNetTokenizer", "do_lower_case": True, "strip_accents": None,
                    "tokenize_chinese_chars": True, "model_max_length": 512, "bos_token": "<s>", "eos_token": "</s>",
                    "unk_token": "[UNK]", "sep_token": "</s>", "pad_token": "<pad>", "cls_token": "<s>",
                    "mask_token": "<mask>"}


def mpnet_vocab():
    with open(BERT_VOCAB, encoding="utf-8") as f:
        bert = [line.rstrip("\n") for line in f]
    return ["<s>", "<pad>", "</s>", "<unk>"] + bert + ["<mask>"]


def mpnet_tokenizer(vocab):
    """What MPNetConverter makes of the vocabulary and TOKENIZER_CONFIG."""
    tok = Tokenizer(models.WordPiece({t: i for i, t in enumerate(vocab)}, unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
                                                lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.add_special_tokens(["<s>", "<pad>", "</s>", "[UNK]", AddedToken("<mask>", lstrip=True, special=True)])
    tok.post_processor = processors.TemplateProcessing(
        single="<s>:0 $A:0 </s>:0", pair="<s>:0 $A:0 </s>:0 </s>:0 $B:1 </s>:1",
        special_tokens=[("<s>", 0), ("</s>", 2)])
    tok.decoder = decoders.WordPiece(prefix="##")
    return tok


def random_weights(config, seed):
    """MPNetModel's tensors (with its pooler, which sentence-transformers does not use), from
    RandomState(seed); the relative attention bias large enough to matter."""
    d, f, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    w = RandomTensors(seed)
    w.normal("embeddings.word_embeddings.weight", (v, d), 0.5)
    w.normal("embeddings.position_embeddings.weight", (config["max_position_embeddings"], d), 0.5)
    w.normal("encoder.relative_attention_bias.weight",
             (config["relative_attention_num_buckets"], config["num_attention_heads"]), 1.5)
    w.norm("embeddings.LayerNorm", d)
    for i in range(config["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        for part in "qkvo":
            w.linear(p + "attention.attn." + part, d, d)
        w.norm(p + "attention.LayerNorm", d)
        w.linear(p + "intermediate.dense", f, d)
        w.linear(p + "output.dense", d, f)
        w.norm(p + "output.LayerNorm", d)
    w.linear("pooler.dense", d, d)
    return w.float32()


def write_json(folder, name, value):
    os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
    with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)


def write_sentence_transformers(folder, dimension):
    write_json(folder, "1_Pooling/config.json",
               {"word_embedding_dimension": dimension, "pooling_mode_cls_token": False,
                "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                "pooling_mode_mean_sqrt_len_tokens": False})
    write_json(folder, "sentence_bert_config.json", {"max_seq_length": MAX_SEQ_LENGTH, "do_lower_case": False})
    write_json(folder, "modules.json",
               [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])


def write_mpnet_folder(folder, seed=20261129, vocab_txt=True, tokenizer_json=True, config=None):
    """The model folder heed converts and sentence-transformers loads; vocab_txt / tokenizer_json
    choose which tokenizer files it holds."""
    vocab = mpnet_vocab()
    config = dict(config or CONFIG, vocab_size=len(vocab))
    os.makedirs(folder, exist_ok=True)
    write_json(folder, "config.json", config)
    write_safetensors(os.path.join(folder, "model.safetensors"), random_weights(config, seed))
    if vocab_txt:
        with open(os.path.join(folder, "vocab.txt"), "w", encoding="utf-8") as f:
            f.write("".join(t + "\n" for t in vocab))
    if tokenizer_json:
        mpnet_tokenizer(vocab).save(os.path.join(folder, "tokenizer.json"))
    write_json(folder, "tokenizer_config.json", TOKENIZER_CONFIG)
    write_sentence_transformers(folder, config["hidden_size"])
    return folder
