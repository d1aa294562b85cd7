// `heed convert --from hf-marian`: a Hugging Face Marian (OPUS-MT) folder as a NeutralModel.
//
// The folder holds config.json (MarianConfig), model.safetensors (save_pretrained with
// safe_serialization; pytorch_model.bin is refused with a hint), source.spm and target.spm
// (SentencePiece models, embedded in the .heed tokenizer section), vocab.json (piece -> id of the
// model's vocabulary; target_vocab.json too when tokenizer_config.json says separate_vocabs) and
// optionally generation_config.json and tokenizer_config.json.
//
// modeling_marian's semantics in heed's terms: post-norm layers (LayerNorm, eps 1e-5) with no
// final norm; embeddings x sqrt(d_model) when scale_embedding; sinusoidal positions starting at 0
// with sin in the first half and cos in the second (written as a learned table of
// max_position_embeddings rows, exactly the values the library computes); the output projection is
// the decoder embeddings (or lm_head) plus final_logits_bias, stored untied as decoder.output;
// decoder start = pad; one-token bad_words_ids (Marian's <pad>) folded into the output bias as
// -1e9, which is what generate() does with them.
#pragma once

#include <string>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::marian {

// True when `dir` looks like a Hugging Face Marian folder (config.json and source.spm).
bool looks_like_model(const std::string& dir);

Status read_model(const std::string& dir, NeutralModel* out);

// HF's MarianSinusoidalPositionalEmbedding table, [positions, dim] row-major: column j < ceil(dim/2)
// is sin(p / 10000^(2j/dim)), column ceil(dim/2) + j is cos(p / 10000^(2j/dim)), computed in
// double precision and rounded to float like the library's NumPy code.
void sinusoidal_table(uint32_t positions, uint32_t dim, float* out);

}  // namespace heed::convert::marian
