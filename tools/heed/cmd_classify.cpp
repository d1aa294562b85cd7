// `heed classify`: one JSON line of label scores per input line, from a BERT sequence classifier.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "encoder_command.h"
#include "heed/encoder_tasks.h"
#include "text_escape.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Reads texts from stdin, one per line, and writes one JSON line per input line to stdout:\n"
    "  {\"label\":\"positive\",\"score\":0.91,\"scores\":[{\"label\":\"positive\",\"score\":0.91},...]}\n"
    "label and score are the best label and its score; scores lists every label, highest first\n"
    "(transformers' text-classification pipeline with top_k=None). Scores are the logits through\n"
    "the function the model's config chose: softmax over the labels (single-label models), sigmoid\n"
    "per label (multi-label or one-label models), or the logits themselves (regression). Numbers\n"
    "are printed with 9 significant digits. An empty line is classified too ([CLS] [SEP] alone).\n"
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

std::string number(float v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(v));
  return text;
}

void print_scores(const Classifier& c, const float* scores) {
  std::vector<size_t> order(c.num_labels());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  std::string line = "{\"label\":" + json_string(c.label(order[0])) + ",\"score\":" + number(scores[order[0]]) +
                     ",\"scores\":[";
  for (size_t i = 0; i < order.size(); ++i) {
    line += (i ? ",{\"label\":" : "{\"label\":") + json_string(c.label(order[i])) + ",\"score\":" +
            number(scores[order[i]]) + "}";
  }
  std::fputs((line + "]}\n").c_str(), stdout);
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
  const size_t labels = classifier->num_labels();
  return answer_stdin_lines("classify", classifier->max_batch(), [&](const std::vector<std::string>& lines, size_t) {
    HEED_RETURN_IF_ERROR(classifier->classify_text(lines, &scores));
    for (size_t i = 0; i < lines.size(); ++i) print_scores(*classifier, scores.data() + i * labels);
    return Status::success();
  });
}

}  // namespace

HEED_REGISTER_COMMAND(classify, "classify", "label scores of each stdin line (JSON lines) with a BERT classifier", 56,
                      run_classify);

}  // namespace heed::cli
