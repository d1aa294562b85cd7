// llama2.c tokenizer files (tokenizer.bin, tok512.bin, ...): int32 max_token_length, then per
// token: f32 merge score, int32 byte length, the bytes. Token ids are positions in the file.
#pragma once

#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert::llama2c {

struct TokenizerBin {
  uint32_t max_token_length = 0;
  std::vector<std::string> tokens;
  std::vector<float> scores;
};

// Reads `expected_tokens` tokens (the checkpoint's vocabulary size) from `path`; the file must
// end right after them. Errors name the file and the token where reading failed.
Status read_tokenizer_bin(const std::string& path, size_t expected_tokens, TokenizerBin* out);

}  // namespace heed::convert::llama2c
