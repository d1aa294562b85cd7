"""XLM-RoBERTa-style folders for the Unigram tests, built the same way by the tests and by
record_xlm_roberta.py: a tokenizer.json made by the `tokenizers` library from a real SentencePiece
model of ../shared (its pieces, scores and precompiled charsmap, laid out as XLM-R's converter lays
them: <s> <pad> </s> <unk>, the pieces, <mask>), and a small XLMRobertaModel with random weights
from numpy's legacy RandomState (the same numbers on every numpy version), in a
sentence-transformers folder (mean pooling, Normalize)."""
import json
import os
import struct

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

from random_weights import RandomTensors, write_safetensors

MARK = "\u2581"


def _varint(data, i):
    value, shift = 0, 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def _fields(data):
    """(number, wire type, value) of each field of a protobuf message."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(data, i)
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        elif wire == 2:
            length, i = _varint(data, i)
            value, i = data[i:i + length], i + length
        else:
            raise ValueError("unexpected protobuf wire type %d" % wire)
        yield number, wire, value


def read_sentencepiece_model(path):
    """The pieces [(piece, score, type)] and the normalizer's precompiled charsmap of a .model file
    (ModelProto: pieces = 1 {piece = 1, score = 2, type = 3}, normalizer_spec = 3 {charsmap = 2})."""
    with open(path, "rb") as f:
        data = f.read()
    pieces, charsmap = [], b""
    for number, _, value in _fields(data):
        if number == 1:
            piece, score, kind = "", 0.0, 1
            for n, _, v in _fields(value):
                if n == 1:
                    piece = v.decode("utf-8")
                elif n == 2:
                    score = struct.unpack("<f", v)[0]
                elif n == 3:
                    kind = v
            pieces.append((piece, score, kind))
        elif number == 3:
            for n, _, v in _fields(value):
                if n == 2:
                    charsmap = bytes(v)
    return pieces, charsmap


def xlm_roberta_vocab(pieces):
    """XLM-R's layout of a SentencePiece vocabulary (transformers' XLMRobertaConverter): the
    model's own first three pieces (<unk> <s> </s>) replaced by fairseq's four, <mask> last."""
    return [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)] + \
        [(p, s) for p, s, _ in pieces[3:]] + [("<mask>", 0.0)]


def add_xlm_roberta_specials(tok):
    tok.add_special_tokens(["<s>", "<pad>", "</s>", "<unk>", AddedToken("<mask>", lstrip=True, special=True,
                                                                          normalized=False)])
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", tok.token_to_id("<s>")), ("</s>", tok.token_to_id("</s>"))])
    return tok


def xlm_roberta_tokenizer(shared, model="botchan-1000.model", style="published"):
    """XLM-R's tokenizer.json. style "published": as the hub's files have it (Precompiled, runs of
    spaces to one, Metaspace); "transformers5": as transformers 5's XLMRobertaTokenizer rebuilds it
    whatever the file says (Precompiled, WhitespaceSplit, Metaspace), which is what
    sentence-transformers then runs."""
    pieces, charsmap = read_sentencepiece_model(os.path.join(shared, "data/sentencepiece", model))
    tok = Tokenizer(models.Unigram(xlm_roberta_vocab(pieces), unk_id=3, byte_fallback=False))
    metaspace = pre_tokenizers.Metaspace(replacement=MARK, prepend_scheme="always", split=True)
    if style == "published":
        tok.normalizer = normalizers.Sequence([normalizers.Precompiled(charsmap), normalizers.Replace(Regex(" {2,}"), " ")])
        tok.pre_tokenizer = metaspace
    else:
        tok.normalizer = normalizers.Precompiled(charsmap)
        tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), metaspace])
    tok.decoder = decoders.Metaspace(replacement=MARK, prepend_scheme="always")
    return add_xlm_roberta_specials(tok)


CONFIG = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 64,
          "max_position_embeddings": 66, "type_vocab_size": 1, "pad_token_id": 1, "bos_token_id": 0,
          "eos_token_id": 2, "layer_norm_eps": 1e-5, "hidden_act": "gelu", "model_type": "xlm-roberta",
          "architectures": ["XLMRobertaModel"], "position_embedding_type": "absolute"}


def random_weights(config, seed):
    """XLMRobertaModel's tensors (no pooler), from RandomState(seed)."""
    d, f, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    w = RandomTensors(seed)
    w.normal("embeddings.word_embeddings.weight", (v, d), 0.5)
    w.normal("embeddings.position_embeddings.weight", (config["max_position_embeddings"], d), 0.5)
    w.normal("embeddings.token_type_embeddings.weight", (1, d), 0.5)
    w.norm("embeddings.LayerNorm", d)
    for i in range(config["num_hidden_layers"]):
        p = "encoder.layer.%d." % i
        for part in ("query", "key", "value"):
            w.linear(p + "attention.self." + part, d, d)
        w.linear(p + "attention.output.dense", d, d)
        w.norm(p + "attention.output.LayerNorm", d)
        w.linear(p + "intermediate.dense", f, d)
        w.linear(p + "output.dense", d, f)
        w.norm(p + "output.LayerNorm", d)
    return w.float32()


def write_xlm_roberta_folder(folder, tok, seed=20261128, config=None, sentence_transformers=True):
    """A model folder heed converts and sentence-transformers loads."""
    config = dict(config or CONFIG, vocab_size=tok.get_vocab_size())
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    write_safetensors(os.path.join(folder, "model.safetensors"), random_weights(config, seed))
    tok.save(os.path.join(folder, "tokenizer.json"))
    with open(os.path.join(folder, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "XLMRobertaTokenizer", "model_max_length": 64, "bos_token": "<s>", "eos_token": "</s>",
                   "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>", "cls_token": "<s>",
                   "sep_token": "</s>"}, f)
    if not sentence_transformers:
        return folder
    os.makedirs(os.path.join(folder, "1_Pooling"), exist_ok=True)
    with open(os.path.join(folder, "1_Pooling/config.json"), "w") as f:
        json.dump({"word_embedding_dimension": config["hidden_size"], "pooling_mode_cls_token": False,
                   "pooling_mode_mean_tokens": True, "pooling_mode_max_tokens": False,
                   "pooling_mode_mean_sqrt_len_tokens": False}, f)
    with open(os.path.join(folder, "sentence_bert_config.json"), "w") as f:
        json.dump({"max_seq_length": 64, "do_lower_case": False}, f)
    with open(os.path.join(folder, "modules.json"), "w") as f:
        json.dump([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                   {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                   {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}], f)
    return folder
