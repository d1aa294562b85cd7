"""transformers' float32 greedy answers of SmolLM2-135M-Instruct to the chats of
data/smollm2_chats.jsonl (recorded by record_smollm2_reference.py), and the measures taken against
them: shared by test_smollm2.py and bench/int8_decoder_fidelity.py."""
import json
import os

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
NEW_TOKENS = 48
END_TOKEN = 2  # <|im_end|>


def chats_and_answers():
    """The 40 chats (message lists) and transformers' answer to each (prompt_ids, generated_ids)."""
    with open(os.path.join(DATA, "smollm2_transformers_greedy.json")) as f:
        answers = json.load(f)["answers"]
    with open(os.path.join(DATA, "smollm2_chats.jsonl"), encoding="utf-8") as f:
        chats = [json.loads(line) for line in f if line.strip()]
    assert len(chats) == len(answers) == 40
    return chats, answers


def without_end(ids):
    """An answer's ids without the end token transformers lists (heed's --ids does not print it)."""
    return ids[:-1] if ids and ids[-1] == END_TOKEN else ids


def mean_nll(score_batch, answers, vocab):
    """Mean negative log-likelihood per token a model gives the answers (end token included), each
    after its prompt. score_batch: a Generator's (heed's or CTranslate2's) score_batch; vocab: id ->
    token string."""
    sequences = [[vocab[i] for i in a["prompt_ids"] + a["generated_ids"]] for a in answers]
    total, count = 0.0, 0
    for answer, result in zip(answers, score_batch(sequences)):
        tail = result.log_probs[-len(answer["generated_ids"]):]
        total -= sum(tail)
        count += len(tail)
    return total / count
