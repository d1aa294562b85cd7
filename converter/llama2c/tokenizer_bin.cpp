#include "llama2c/tokenizer_bin.h"
#include "source_files.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

namespace heed::convert::llama2c {

Status read_tokenizer_bin(const std::string& path, size_t expected_tokens, TokenizerBin* out) {
  std::vector<uint8_t> bytes;
  HEED_RETURN_IF_ERROR(read_bytes(path, &bytes));
  size_t at = 0;
  const auto read4 = [&](void* v) {
    if (bytes.size() - at < 4) return false;
    std::memcpy(v, bytes.data() + at, 4);
    at += 4;
    return true;
  };
  TokenizerBin t;
  int32_t max_length = 0;
  if (!read4(&max_length) || max_length <= 0 || max_length > (1 << 16)) {
    return invalid_file(path + ": not a llama2.c tokenizer (max_token_length " + std::to_string(max_length) + ")");
  }
  t.max_token_length = static_cast<uint32_t>(max_length);
  t.tokens.reserve(expected_tokens);
  t.scores.reserve(expected_tokens);
  for (size_t i = 0; i < expected_tokens; ++i) {
    float score = 0;
    int32_t length = 0;
    if (!read4(&score) || !read4(&length)) {
      return invalid_file(path + ": truncated at token " + std::to_string(i) + " (the checkpoint has " +
                          std::to_string(expected_tokens) + " tokens)");
    }
    if (!std::isfinite(score)) return invalid_file(path + ": token " + std::to_string(i) + " has a non-finite score");
    if (length <= 0 || length > max_length || bytes.size() - at < static_cast<size_t>(length)) {
      return invalid_file(path + ": token " + std::to_string(i) + " has an invalid length " + std::to_string(length));
    }
    t.tokens.emplace_back(reinterpret_cast<const char*>(bytes.data() + at), static_cast<size_t>(length));
    t.scores.push_back(score);
    at += static_cast<size_t>(length);
  }
  if (at != bytes.size()) {
    return invalid_file(path + ": " + std::to_string(bytes.size() - at) + " bytes follow the " +
                        std::to_string(expected_tokens) + " tokens the checkpoint expects (a tokenizer for another "
                        "vocabulary size?)");
  }
  *out = std::move(t);
  return Status::success();
}

}  // namespace heed::convert::llama2c
