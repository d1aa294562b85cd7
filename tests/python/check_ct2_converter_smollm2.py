"""A Llama-family model converted by CTranslate2's own `ct2-transformers-converter` (not by spec
classes, as test_ct2_decoder_only.py does in CI) read by heed: `heed convert --from ct2` on the
folder, then heed's greedy continuations of the 40 SmolLM2 chats against CTranslate2's on the same
folder, token for token.

Not run in CI: the converter loads the model with transformers and torch, which the CI machine does
not install (a CPU torch is not on the Python package index). Run by hand, in an environment with
ctranslate2, transformers, torch and heed's Python package:

    python tests/python/check_ct2_converter_smollm2.py build/smollm2/SmolLM2-135M-Instruct \
        --heed-cli build/host/tools/heed

(the authors' folder test_smollm2.py rebuilds there). Prints the agreement; exit status 1 if any
continuation differs. docs/python.md records the last run."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import ctranslate2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from smollm2_reference import NEW_TOKENS, chats_and_answers, without_end  # noqa: E402


def convert_with_ctranslate2(hf_folder, out):
    subprocess.run([sys.executable, "-m", "ctranslate2.converters.transformers", "--model", hf_folder,
                    "--output_dir", out], check=True)


def ctranslate2_answers(folder, prompts):
    generator = ctranslate2.Generator(folder, compute_type="float32")
    results = generator.generate_batch(prompts, max_length=NEW_TOKENS, sampling_topk=1, max_batch_size=8,
                                       include_prompt_in_result=False)
    return [without_end(r.sequences_ids[0]) for r in results]


def heed_answers(cli, folder, prompt_ids, workdir):
    model = os.path.join(workdir, "smollm2-from-ct2.heed")
    subprocess.run([cli, "convert", "--from", "ct2", folder, "-o", model, "--quantize", "float32", "--quiet"],
                   check=True)
    answers = []
    for ids in prompt_ids:
        out = subprocess.run([cli, "generate", "-m", model, "--prompt-ids", ",".join(map(str, ids)), "--max-len",
                              str(NEW_TOKENS), "--ids"], capture_output=True, text=True, check=True).stdout
        answers.append([int(x) for x in out.split()])
    return answers


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("hf_folder", help="SmolLM2-135M-Instruct as its authors publish it")
    parser.add_argument("--heed-cli", required=True)
    args = parser.parse_args()
    _, answers = chats_and_answers()
    with tempfile.TemporaryDirectory() as work:
        folder = os.path.join(work, "ct2")
        convert_with_ctranslate2(args.hf_folder, folder)
        with open(os.path.join(folder, "vocabulary.json"), encoding="utf-8") as f:
            vocab = json.load(f)
        # The chat prompts start with <|im_start|>, the folder's start token: CTranslate2 takes them
        # as they are; heed's --prompt-ids adds the start token itself, so it gets the rest.
        assert all(a["prompt_ids"][0] == vocab.index("<|im_start|>") for a in answers)
        expected = ctranslate2_answers(folder, [[vocab[i] for i in a["prompt_ids"]] for a in answers])
        got = heed_answers(args.heed_cli, folder, [a["prompt_ids"][1:] for a in answers], work)
    same = sum(g == e for g, e in zip(got, expected))
    print("heed convert --from ct2 (ct2-transformers-converter %s output, float32): %d/%d chats give CTranslate2's "
          "%d-token greedy ids" % (ctranslate2.__version__, same, len(expected), NEW_TOKENS))
    return 0 if same == len(expected) else 1


if __name__ == "__main__":
    sys.exit(main())
