"""How faithful a quantized decoder LM is to its float32 model, on chat prompts: for each model
file, the greedy continuations (48 tokens) that equal the float32 reference's, the mean matched
prefix, the NLL (nats/token) the model gives the reference continuations, file size and decoding
speed (one thread, batch 8). heed's .heed files and CTranslate2 model folders side by side, in
one process. The reference is tests/python/data/smollm2_transformers_greedy.json (transformers,
float32) for the chats of tests/python/data/smollm2_chats.jsonl.

Run: python bench/int8_decoder_fidelity.py --heed-cli build/host/tools/heed --vocab FOLDER/vocab.json
       MODEL.heed... [--ct2 CT2_FOLDER...]
(docs/quantization.md, "Decoder LMs", gives the commands that made its figures.)"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
from smollm2_reference import NEW_TOKENS, chats_and_answers, mean_nll, without_end  # noqa: E402


def agreement(outputs, answers):
    """(continuations equal to the reference's, mean fraction of the reference matched as a prefix)."""
    same, prefix = 0, 0.0
    for out, answer in zip(outputs, answers):
        ref = without_end(answer["generated_ids"])
        same += out == ref
        n = 0
        while n < min(len(out), len(ref)) and out[n] == ref[n]:
            n += 1
        prefix += n / max(len(ref), 1)
    return same, prefix / len(answers)


def heed_row(cli, path, chats, answers, vocab):
    import heed
    stdin = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in chats).encode("utf-8")
    start = time.perf_counter()
    out = subprocess.run([cli, "generate", "-m", path, "--chat", "--ids", "--max-len", str(NEW_TOKENS), "--batch", "8",
                          "-t", "1"], input=stdin, capture_output=True, check=True).stdout.decode()
    seconds = time.perf_counter() - start
    outputs = [[int(i) for i in line.split()] for line in out.split("\n")[:-1]]
    return outputs, seconds, mean_nll(heed.Generator(path).score_batch, answers, vocab), os.path.getsize(path)


def ct2_row(folder, chats, answers, vocab):
    import ctranslate2
    generator = ctranslate2.Generator(folder, intra_threads=1)
    prompts = [[vocab[i] for i in a["prompt_ids"]] for a in answers]
    start = time.perf_counter()
    results = generator.generate_batch(prompts, max_length=NEW_TOKENS, sampling_topk=1, max_batch_size=8,
                                       include_prompt_in_result=False)
    seconds = time.perf_counter() - start
    outputs = [without_end(r.sequences_ids[0]) for r in results]
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
    return outputs, seconds, mean_nll(generator.score_batch, answers, vocab), size


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help=".heed files")
    parser.add_argument("--heed-cli", required=True)
    parser.add_argument("--vocab", required=True, help="the model folder's vocab.json (token -> id)")
    parser.add_argument("--ct2", nargs="*", default=[], help="CTranslate2 model folders")
    args = parser.parse_args()
    chats, answers = chats_and_answers()
    with open(args.vocab, encoding="utf-8") as f:
        vocab = {i: t for t, i in json.load(f).items()}
    rows = [(m, heed_row(args.heed_cli, m, chats, answers, vocab)) for m in args.models]
    rows += [(c, ct2_row(c, chats, answers, vocab)) for c in args.ct2]
    tokens = sum(len(a["generated_ids"]) for a in answers)
    print("| model | same 48-token greedy | mean matched prefix | NLL (nats/token) | size (MiB) | tokens/s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, (outputs, seconds, loss, size) in rows:
        same, prefix = agreement(outputs, answers)
        print("| %s | %d/%d | %.0f %% | %.4f | %.1f | %.1f |" % (os.path.basename(name.rstrip("/")), same, len(answers),
                                                                100 * prefix, loss, size / 2**20, tokens / seconds))


if __name__ == "__main__":
    main()
