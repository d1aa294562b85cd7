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

// Sets the decoding option `key` (heed/decode_option_keys.h: the runtime's field and range) of
// *options from `--name`'s value as the command line parsed it (whole numbers exactly, as text);
// false after a usage error naming the flag, the option and the range.
bool set_decode_flag(const Args& args, DecodeOptions* options, const char* name, const char* key, int64_t value);
bool set_decode_flag(const Args& args, DecodeOptions* options, const char* name, const char* key, double value);

// The controls as token strings and numbers, until a vocabulary turns them into ids.
struct ControlFlags {
  DecodeControls numbers;  // disable_unk, repetition_penalty, no_repeat_ngram_size (no ids yet)
  std::vector<std::vector<std::string>> suppress;  // token sequences
  std::vector<std::string> end_tokens;
};
// False after printing a usage error (a bad number, an unreadable --suppress-file).
bool get_control_flags(const Args& args, ControlFlags* out);

// The ids DecodeControls points to, owned here: fill them, then bind() the controls to them.
struct ControlIds {
  ControlTokenIds ids;

  // Maps the flags' tokens with `to_id` (-1: not in the vocabulary, an error naming the token).
  template <typename ToId>
  Status map(const ControlFlags& flags, ToId to_id) {
    return ids.map(flags.suppress, flags.end_tokens, to_id, "--suppress", "--end-token");
  }
  void bind(const ControlFlags& flags, DecodeControls* controls);
};

}  // namespace heed::cli
