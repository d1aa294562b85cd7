// The parts of a Hugging Face Marian folder's config.json and tokenizer_config.json that decide
// how heed runs the model (modeling_marian semantics: post-norm layers, no final norm, sinusoidal
// positions from 0, tied output plus final_logits_bias, decoder start = pad).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert::marian {

struct MarianConfig {
  uint32_t vocab_size = 0;
  uint32_t decoder_vocab_size = 0;  // = vocab_size unless the vocabularies are separate
  uint32_t d_model = 0;
  uint32_t encoder_layers = 0, decoder_layers = 0;
  uint32_t encoder_heads = 0, decoder_heads = 0;
  uint32_t encoder_ffn_dim = 0, decoder_ffn_dim = 0;
  uint32_t max_position_embeddings = 0;
  std::string activation;           // activation_function as written
  bool scale_embedding = false;
  bool share_encoder_decoder_embeddings = true;
  bool tie_word_embeddings = true;
  int32_t pad_token_id = -1, eos_token_id = -1, decoder_start_token_id = -1;
  int32_t forced_eos_token_id = -1;
  std::vector<int32_t> suppressed_ids;  // single-token entries of bad_words_ids

  // tokenizer_config.json (all optional)
  std::string source_lang, target_lang;
  std::string unk_token = "<unk>";
  bool separate_vocabs = false;
};

// Reads DIR/config.json (required) and DIR/tokenizer_config.json (when present).
Status read_config(const std::string& dir, MarianConfig* out);

}  // namespace heed::convert::marian
