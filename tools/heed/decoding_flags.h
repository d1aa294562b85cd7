// The decoding-control options `heed translate` and `heed generate` share (docs/decoding.md has
// each with its CTranslate2 / llama.cpp equivalent), parsed once for both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "args.h"
#include "heed/decoding.h"

namespace heed::cli {

// --disable-unk, --suppress TOKENS (repeatable), --suppress-file FILE, --repetition-penalty X,
// --no-repeat-ngram N, --end-token TOKEN (repeatable).
std::vector<OptionSpec> decoding_control_options();

// The controls as token strings and numbers, until a vocabulary turns them into ids.
struct ControlFlags {
  bool disable_unk = false;
  std::vector<std::vector<std::string>> suppress;  // token sequences
  float repetition_penalty = 1.0f;
  size_t no_repeat_ngram_size = 0;
  std::vector<std::string> end_tokens;
};
// False after printing a usage error (a bad number, an unreadable --suppress-file).
bool get_control_flags(const Args& args, ControlFlags* out);

// The ids DecodeControls points to, owned here: fill them, then bind() the controls to them.
struct ControlIds {
  std::vector<int32_t> suppress_ids;
  std::vector<size_t> suppress_offsets{0};
  std::vector<int32_t> end_ids;
  TokenBatch suppress_batch;

  // Maps the flags' tokens with `to_id` (-1: not in the vocabulary, an error naming the token).
  template <typename ToId>
  Status map(const ControlFlags& flags, ToId to_id);
  void bind(const ControlFlags& flags, DecodeControls* controls);
};

template <typename ToId>
Status ControlIds::map(const ControlFlags& flags, ToId to_id) {
  const auto one = [&](const std::string& token, const char* option, std::vector<int32_t>* ids) {
    const int32_t id = to_id(token);
    if (id < 0) return invalid_argument(std::string(option) + ": '" + token + "' is not in the model's vocabulary");
    ids->push_back(id);
    return Status::success();
  };
  for (const auto& sequence : flags.suppress) {
    for (const std::string& token : sequence) HEED_RETURN_IF_ERROR(one(token, "--suppress", &suppress_ids));
    suppress_offsets.push_back(suppress_ids.size());
  }
  for (const std::string& token : flags.end_tokens) HEED_RETURN_IF_ERROR(one(token, "--end-token", &end_ids));
  return Status::success();
}

}  // namespace heed::cli
