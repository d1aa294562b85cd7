// `heed fill-mask`: the most likely tokens for each [MASK] of each input line, from a BERT masked LM.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "encoder_command.h"
#include "heed/encoder_tasks.h"
#include "json_output.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Reads texts with [MASK] tokens from stdin, one per line, and writes one JSON line per input\n"
    "line to stdout, as transformers' fill-mask pipeline answers: for a line with one mask, its\n"
    "--top-k candidates, most likely first,\n"
    "  [{\"score\":0.18,\"token\":902,\"token_str\":\"capital\"},...]\n"
    "and for a line with several masks, one such list per mask, in order ([[...],[...]]). score is\n"
    "the token's probability (a softmax over the whole vocabulary at that position), token its id,\n"
    "token_str its vocabulary entry (\"##\" pieces as they are). The pipeline's \"sequence\" (the\n"
    "line with the mask replaced) is not printed. A line without a mask is reported on stderr and\n"
    "answered with [] (the exit status is then 1).\n"
    "\n"
    "The model is a BertForMaskedLM folder converted with `heed convert --from hf-bert`. Each line\n"
    "is tokenized like BertTokenizer ([MASK] stays one token), wrapped in [CLS] ... [SEP] and cut\n"
    "to --max-source-len tokens.\n"
    "\n"
    "A line that cannot be answered (invalid UTF-8, ...) is written as {} and reported on stderr with\n"
    "its line number; the other lines are answered.\n"
    "Exit status: 0 done, 1 error (a line on stderr per error), 2 wrong usage.";

std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> own = {model_option(), {"top-k", 'k', true, "N", "candidates per mask (default 5)"}};
  for (auto& spec : encoder_session_specs()) own.push_back(std::move(spec));
  return own;
}

FloatJson candidates_json(const MaskFiller& f, const std::vector<MaskCandidate>& candidates) {
  FloatJson out = FloatJson::array();
  for (const MaskCandidate& c : candidates) {
    out.push_back({{"score", json_number(c.score)}, {"token", c.id}, {"token_str", f.token(c.id)}});
  }
  return out;
}

// The line's answer, appended to *out; an error for a score that is not a number.
Status line_json(const MaskFiller& f, const std::vector<std::vector<MaskCandidate>>& masks, std::string* out) {
  FloatJson line = FloatJson::array();
  if (masks.size() == 1) {
    line = candidates_json(f, masks[0]);
  } else {
    for (const auto& mask : masks) line.push_back(candidates_json(f, mask));
  }
  std::string text;
  HEED_RETURN_IF_ERROR(json_text(line, &text));
  *out += text + "\n";
  return Status::success();
}

// The batch's answers, written once every line has one; *unmasked: the lines without a mask.
Status print_lines(const MaskFiller& f, const std::vector<std::vector<std::vector<MaskCandidate>>>& answers,
                   size_t lines, std::vector<size_t>* unmasked) {
  std::string out;
  unmasked->clear();
  for (size_t i = 0; i < lines; ++i) {
    HEED_RETURN_IF_ERROR(line_json(f, answers[i], &out));
    if (answers[i].empty()) unmasked->push_back(i);
  }
  std::fputs(out.c_str(), stdout);
  return Status::success();
}

int run_fill_mask(const std::vector<std::string>& argv) {
  Args args("fill-mask", "-m MODEL.heed [--top-k N] < texts.txt", kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  EncoderTaskOptions options;
  if (const auto exit_code = read_encoder_session(args, &options)) return *exit_code;
  const auto top_k = args.get_int("top-k", 5, 1, 1 << 24);
  if (!top_k) return kExitUsage;
  std::unique_ptr<MaskFiller> filler;
  const Status st = MaskFiller::open(args.get("model"), options, &filler);
  if (!st) {
    std::fprintf(stderr, "heed fill-mask: %s\n", st.message().c_str());
    return kExitError;
  }
  if (static_cast<size_t>(*top_k) > filler->vocab_size()) {
    return args.usage_error("--top-k must be at most the vocabulary's " + std::to_string(filler->vocab_size()));
  }
  std::vector<std::vector<std::vector<MaskCandidate>>> answers;
  bool unmasked = false;
  const AnswerLines answer = [&](const std::vector<std::string>& lines, size_t first) {
    HEED_RETURN_IF_ERROR(filler->fill_text(lines, static_cast<size_t>(*top_k), &answers));
    std::vector<size_t> without_mask;
    HEED_RETURN_IF_ERROR(print_lines(*filler, answers, lines.size(), &without_mask));
    for (const size_t i : without_mask) {
      std::fprintf(stderr, "heed fill-mask: line %zu has no %s token\n", first + i,
                   filler->token(filler->mask_id()).c_str());
      unmasked = true;
    }
    return Status::success();
  };
  const int code = answer_stdin_lines("fill-mask", filler->max_batch(), !args.has("no-progress"), answer);
  return code == kExitOk && unmasked ? kExitError : code;
}

}  // namespace

HEED_REGISTER_COMMAND(fill_mask, "fill-mask", "candidates for each [MASK] of each stdin line with a BERT masked LM", 57,
                      run_fill_mask);

}  // namespace heed::cli
