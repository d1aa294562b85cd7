// `heed convert --from hf-gpt2` and `--from hf-llama`: a Hugging Face causal language model folder
// (config.json, model.safetensors, the tokenizer files) as a decoder-only NeutralModel.
//
// hf-gpt2 (GPT2LMHeadModel): Conv1D weights are stored [in, out] and are transposed; c_attn's
// fused Q, K, V columns become heed's qkv rows in the same order; LayerNorm with bias, biases on
// every linear, the configured activation (gelu_new = tanh GELU), learned positions (n_positions),
// pre-norm with the final ln_f, lm_head tied to wte unless tie_word_embeddings is false. Tensor
// names with or without the "transformer." prefix (both kinds of saves exist); the attention-mask
// buffers some saves include (attn.bias, attn.masked_bias) are not weights and are skipped. The
// tokenizer: byte-level BPE from vocab.json and merges.txt (both go into the file, so `heed
// generate --prompt TEXT` reads text), no start token, eos_token_id as the end token.
//
// hf-llama (LlamaForCausalLM): RMSNorm, SwiGLU (ffn.in = gate_proj under SiLU, ffn.gate = up_proj,
// ffn.out = down_proj), RoPE with rope_theta over max_position_embeddings positions, grouped-query
// attention, lm_head unless tie_word_embeddings. The tokenizer.model (SentencePiece) is embedded so
// `heed generate --prompt TEXT` reads text; BOS = bos_token_id starts every generation.
//
// Any tensor the reader does not map is an error naming it (nothing is dropped silently), as are
// missing tensors, wrong shapes and configurations heed does not run (config.h).
#pragma once

#include <string>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::hf_causal_lm {

// Detection: a folder whose config.json says model_type "gpt2" / "llama" and holds safetensors.
bool looks_like_gpt2(const std::string& dir);
bool looks_like_llama(const std::string& dir);

Status read_gpt2(const std::string& dir, NeutralModel* out);
Status read_llama(const std::string& dir, NeutralModel* out);

// Reorders the rows of a [heads * head_dim, cols] projection from the "rotate half" RoPE layout
// (Hugging Face: pair j of a head is (row j, row j + head_dim/2)) to interleaved pairs (heed and
// Meta's original layout: pair j is (row 2j, row 2j + 1)). Exposed for tests.
void interleave_rope_rows(const float* in, size_t heads, size_t head_dim, size_t cols, float* out);

}  // namespace heed::convert::hf_causal_lm
