"""What the record scripts (record_xlm_roberta.py, record_mpnet.py) write: sentence-transformers'
float32 embeddings of a model folder with the sentences and token ids, and the versions that
computed them. Needs torch, transformers and sentence-transformers."""
import json
import os


def record(folder, sentences, batch_size=4):
    """The SentenceTransformer of `folder` and its embeddings of `sentences` (batches of
    batch_size: padding in every batch of unequal lengths)."""
    import sentence_transformers
    import torch

    model = sentence_transformers.SentenceTransformer(folder, device="cpu")
    with torch.no_grad():
        vectors = model.encode(sentences, convert_to_numpy=True, batch_size=batch_size)
    return model, vectors


def write_reference(out, script, sentences, ids, vectors):
    import numpy as np
    import sentence_transformers
    import torch
    import transformers

    reference = {
        "produced_by": "%s with torch %s, transformers %s, sentence-transformers %s"
                       % (script, torch.__version__, transformers.__version__, sentence_transformers.__version__),
        "sentences": sentences,
        "ids": [list(map(int, i)) for i in ids],
        "embeddings": np.asarray(vectors, dtype=np.float32).tolist(),
    }
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(reference, f, indent=1, ensure_ascii=False)
    print("wrote", out)
