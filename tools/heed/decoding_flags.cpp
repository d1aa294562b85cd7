#include "decoding_flags.h"

#include <sstream>

#include "heed/decode_option_keys.h"
#include "heed/translator.h"
#include "source_files.h"

namespace heed::cli {

namespace {

constexpr uint64_t kMaxSuppressFileBytes = uint64_t{16} << 20;

// One sequence per non-empty line of the file, space-separated tokens.
bool read_suppress_file(const Args& args, const std::string& path, std::vector<std::vector<std::string>>* out) {
  std::string text;
  const Status st = convert::read_text(path, &text, kMaxSuppressFileBytes);
  if (!st) {
    args.usage_error("--suppress-file: " + st.message());
    return false;
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::vector<std::string> tokens = Translator::split_tokens(line);
    if (!tokens.empty()) out->push_back(std::move(tokens));
  }
  return true;
}

bool flag_set(const Args& args, const char* name, const Status& st) {
  if (!st) args.usage_error(std::string("--") + name + ": " + st.message());
  return st.ok();
}

}  // namespace

bool set_decode_flag(const Args& args, DecodeOptions* options, const char* name, const char* key, int64_t value) {
  return flag_set(args, name, set_decode_option(options, key, std::string_view(std::to_string(value))));
}

bool set_decode_flag(const Args& args, DecodeOptions* options, const char* name, const char* key, double value) {
  return flag_set(args, name, set_decode_option(options, key, value));
}

std::vector<OptionSpec> decoding_control_options() {
  return {
      {"disable-unk", 0, false, "", "never produce the unknown token"},
      {"suppress", 0, true, "TOKENS", "never produce this token sequence (space-separated tokens; repeatable)"},
      {"suppress-file", 0, true, "FILE", "sequences to suppress, one per line"},
      {"repetition-penalty", 0, true, "X", "penalize tokens already produced: logit / X if positive, x X if "
                                           "negative (default 1: off)"},
      {"no-repeat-ngram", 0, true, "N", "never repeat an n-gram of N tokens (default 0: off)"},
      {"end-token", 0, true, "TOKEN", "end the output at this token instead of the end token (repeatable)"},
  };
}

bool get_control_flags(const Args& args, ControlFlags* out) {
  const auto penalty = args.get_double("repetition-penalty", 1.0);
  const auto ngram = args.get_int("no-repeat-ngram", 0, 0, 1 << 20);
  DecodeOptions keyed;  // the numbers through the runtime's one table of decoding options
  if (!penalty || !ngram || !set_decode_flag(args, &keyed, "repetition-penalty", "repetition_penalty", *penalty) ||
      !set_decode_flag(args, &keyed, "no-repeat-ngram", "no_repeat_ngram_size", *ngram) ||
      !set_decode_flag(args, &keyed, "disable-unk", "disable_unk", int64_t{args.has("disable-unk")})) {
    return false;
  }
  out->numbers = keyed.controls;
  for (const std::string& s : args.get_all("suppress")) {
    std::vector<std::string> tokens = Translator::split_tokens(s);
    if (tokens.empty()) {
      args.usage_error("--suppress needs at least one token");
      return false;
    }
    out->suppress.push_back(std::move(tokens));
  }
  if (args.has("suppress-file") && !read_suppress_file(args, args.get("suppress-file"), &out->suppress)) return false;
  for (const std::string& t : args.get_all("end-token")) {
    if (t.empty()) {
      args.usage_error("--end-token needs a token");
      return false;
    }
    out->end_tokens.push_back(t);
  }
  return true;
}

void ControlIds::bind(const ControlFlags& flags, DecodeControls* controls) {
  controls->disable_unk = flags.numbers.disable_unk;
  controls->repetition_penalty = flags.numbers.repetition_penalty;
  controls->no_repeat_ngram_size = flags.numbers.no_repeat_ngram_size;
  ids.bind(controls);
}

}  // namespace heed::cli
