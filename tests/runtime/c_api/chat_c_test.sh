#!/bin/sh
# heed_generate_chat from C: tests/fixtures/hf-llama converted twice, with a ChatML chat_template in
# tokenizer_config.json (written here in the format's published layout) and without; chat_c then
# compares the chat's answer with heed_generate_text's on the ChatML text written out below.
# usage: chat_c_test.sh "EMULATOR" HEED CHAT_C FIXTURE WORK_DIR
set -u
emu=$1 heed=$2 program=$3 fixture=$4 dir=$5
rm -rf "$dir" && mkdir -p "$dir" && cp -r "$fixture" "$dir/llama" || exit 1
# Room for the chat's text: RoPE positions have no table to outgrow.
sed -i 's/"max_position_embeddings": 64/"max_position_embeddings": 256/' "$dir/llama/config.json"
$emu "$heed" convert "$dir/llama" -o "$dir/plain.heed" --quantize float32 --quiet || exit 1
cat >"$dir/llama/tokenizer_config.json" <<'JSON'
{"chat_template": "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"}
JSON
$emu "$heed" convert "$dir/llama" -o "$dir/chat.heed" --quantize float32 --quiet || exit 1
printf '<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nTell me a story.<|im_end|>\n<|im_start|>assistant\n' >"$dir/chat.txt"
$emu "$program" "$dir/chat.heed" "$dir/plain.heed" "$dir/chat.txt"
