"""Records transformers' float32 greedy answers of SmolLM2-135M-Instruct to the chats in
data/smollm2_chats.jsonl into data/smollm2_transformers_greedy.json, the reference of
test_smollm2.py. Independent of heed and of smollm2_folder.py: transformers reads the GGUF itself
(weights dequantized to float32, tokenizer and chat template from the GGUF's metadata).

Needs torch, transformers and gguf (not in tests/requirements.txt: CI reads the recorded file).
Run: python record_smollm2_reference.py path/to/SmolLM2-135M-Instruct.Q4_1.gguf"""
import json
import os
import sys

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
NEW_TOKENS = 48


def main(gguf_path):
    torch.set_num_threads(1)
    folder, name = os.path.split(gguf_path)
    tokenizer = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, torch_dtype=torch.float32).eval()
    answers = []
    with open(os.path.join(HERE, "data", "smollm2_chats.jsonl"), encoding="utf-8") as f:
        for line in f:
            messages = json.loads(line)
            prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
            with torch.no_grad():
                out = model.generate(torch.tensor([prompt]), max_new_tokens=NEW_TOKENS, do_sample=False,
                                     eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
            answers.append({"prompt_ids": prompt, "generated_ids": out[0, len(prompt):].tolist()})
    with open(os.path.join(HERE, "data", "smollm2_transformers_greedy.json"), "w") as f:
        json.dump({"recorded_with": "transformers %s, torch %s, float32, greedy, %d new tokens"
                   % (__import__("transformers").__version__, torch.__version__, NEW_TOKENS), "answers": answers}, f)


if __name__ == "__main__":
    main(sys.argv[1])
