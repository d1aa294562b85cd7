// `heed classify`: one JSON line of label scores per input line, from a BERT sequence classifier.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
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
    "Reads texts from stdin, one per line, and writes one JSON line per input line to stdout:\n"
    "  {\"label\":\"positive\",\"score\":0.91,\"scores\":[{\"label\":\"positive\",\"score\":0.91},...]}\n"
    "label and score are the best label and its score; scores lists every label, highest first\n"
    "(transformers' text-classification pipeline with top_k=None). Scores are the logits through\n"
    "the function the model's config chose: softmax over the labels (single-label models), sigmoid\n"
    "per label (multi-label or one-label models), or the logits themselves (regression). Numbers\n"
    "are the shortest decimals that read back as the same float32. An empty line is classified\n"
    "too ([CLS] [SEP] alone).\n"
    "\n"
    "The model is a BertForSequenceClassification folder converted with `heed convert --from\n"
    "hf-bert` (the label names come from its config's id2label). Each line is tokenized like\n"
    "BertTokenizer, wrapped in [CLS] ... [SEP] and cut to --max-source-len tokens.\n"
    "\n"
    "A line that cannot be answered (invalid UTF-8, ...) is written as {} and reported on stderr with\n"
    "its line number; the other lines are answered.\n"
    "Exit status: 0 done, 1 error (a line on stderr per error), 2 wrong usage.";

std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> own = {model_option()};
  for (auto& spec : encoder_session_specs()) own.push_back(std::move(spec));
  return own;
}

// One line's record; an error for a score that is not a number.
Status scores_line(const Classifier& c, const float* scores, std::string* out) {
  std::vector<size_t> order(c.num_labels());
  std::iota(order.begin(), order.end(), size_t{0});
  // NaN ranks last, so the order is one (json_text then refuses the record).
  const auto rank = [&](size_t i) { return std::isnan(scores[i]) ? -HUGE_VALF : scores[i]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rank(a) > rank(b); });
  FloatJson record = {{"label", c.label(order[0])}, {"score", json_number(scores[order[0]])}};
  FloatJson& all = record["scores"] = FloatJson::array();
  for (const size_t i : order) all.push_back({{"label", c.label(i)}, {"score", json_number(scores[i])}});
  std::string text;
  HEED_RETURN_IF_ERROR(json_text(record, &text));
  *out += text + "\n";
  return Status::success();
}

// The batch's records, written once every line has one.
Status print_scores(const Classifier& c, const std::vector<float>& scores, size_t lines) {
  std::string out;
  for (size_t i = 0; i < lines; ++i) HEED_RETURN_IF_ERROR(scores_line(c, scores.data() + i * c.num_labels(), &out));
  std::fputs(out.c_str(), stdout);
  return Status::success();
}

int run_classify(const std::vector<std::string>& argv) {
  Args args("classify", "-m MODEL.heed < texts.txt", kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  EncoderTaskOptions options;
  if (const auto exit_code = read_encoder_session(args, &options)) return *exit_code;
  std::unique_ptr<Classifier> classifier;
  const Status st = Classifier::open(args.get("model"), options, &classifier);
  if (!st) {
    std::fprintf(stderr, "heed classify: %s\n", st.message().c_str());
    return kExitError;
  }
  std::vector<float> scores;
  const AnswerLines answer = [&](const std::vector<std::string>& lines, size_t) {
    HEED_RETURN_IF_ERROR(classifier->classify_text(lines, &scores));
    return print_scores(*classifier, scores, lines.size());
  };
  return answer_stdin_lines("classify", classifier->max_batch(), !args.has("no-progress"), answer);
}

}  // namespace

HEED_REGISTER_COMMAND(classify, "classify", "label scores of each stdin line (JSON lines) with a BERT classifier", 56,
                      run_classify);

}  // namespace heed::cli
