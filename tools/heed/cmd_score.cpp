// `heed score`: log-probabilities of given translations (teacher forcing).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "args.h"
#include "command.h"
#include "line_reader.h"
#include "heed/translator.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Reads lines 'SOURCE ||| TARGET' from stdin (space-separated tokens; unknown tokens map to the\n"
    "model's unknown token) and prints, for each, the log-probability of every target token and then\n"
    "of the end token, space separated, one line per input line. Their sum is the log-probability of\n"
    "the whole target. A line without '|||' or longer than the limits is an error naming the line\n"
    "(exit 1).";

std::vector<OptionSpec> specs() {
  return {
      model_option("the model to score with (required)"),
      {"batch", 0, true, "N", "lines per batch (default 16)"},
      {"max-source-len", 0, true, "N", "longest accepted source in tokens (default: 256, or the model's positions)"},
      {"max-len", 0, true, "N", "longest accepted target in tokens, end token included (default: 256, or the "
                                "model's positions)"},
      threads_option(),
      backend_option(),
      {"tokens", 0, false, "", "input is space-separated tokens (the only mode for now)"},
      no_mmap_option(),
  };
}

int fail(const std::string& message) {
  std::fprintf(stderr, "heed score: %s\n", message.c_str());
  return kExitError;
}

// The batch of 'source ||| target' lines being read, scored together.
struct ScoreBatch {
  std::vector<std::vector<std::string>> sources, targets;
  size_t first_line = 0;
};

// Scores the batch and prints each line's log-probs; the batch is empty afterwards.
int flush(Translator& translator, ScoreBatch* b) {
  if (b->sources.empty()) return kExitOk;
  std::vector<std::vector<float>> scores;
  Status s = translator.score_tokens(b->sources, b->targets, &scores);
  if (!s) {
    return fail("lines " + std::to_string(b->first_line + 1) + "-" + std::to_string(b->first_line + b->sources.size()) +
                ": " + s.message());
  }
  for (const auto& lps : scores) {
    std::string out;
    char buf[32];
    for (size_t i = 0; i < lps.size(); ++i) {
      std::snprintf(buf, sizeof buf, i ? " %.6f" : "%.6f", lps[i]);
      out += buf;
    }
    out += '\n';
    std::fputs(out.c_str(), stdout);
  }
  std::fflush(stdout);
  b->first_line += b->sources.size();
  b->sources.clear();
  b->targets.clear();
  return kExitOk;
}

// Splits line `index` into source and target tokens and adds them to the batch.
int add_line(const std::string& line, size_t index, size_t max_tokens, size_t max_len, ScoreBatch* b) {
  const size_t bar = line.find("|||");
  if (bar == std::string::npos) return fail("line " + std::to_string(index + 1) + " has no '|||' between source and target");
  std::vector<std::string> src = Translator::split_tokens(std::string_view(line).substr(0, bar));
  std::vector<std::string> tgt = Translator::split_tokens(std::string_view(line).substr(bar + 3));
  if (src.size() > max_tokens) {
    return fail("line " + std::to_string(index + 1) + ": the source has " + std::to_string(src.size()) +
                " tokens, more than --max-source-len allows (" + std::to_string(max_tokens) + ")");
  }
  if (tgt.size() + 1 > max_len) {
    return fail("line " + std::to_string(index + 1) + ": the target has " + std::to_string(tgt.size()) +
                " tokens; with the end token that is more than --max-len " + std::to_string(max_len));
  }
  b->sources.push_back(std::move(src));
  b->targets.push_back(std::move(tgt));
  return kExitOk;
}

int run_score(const std::vector<std::string>& argv) {
  Args args("score", "-m MODEL.heed --tokens < 'source ||| target' lines", kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  auto batch = args.get_int("batch", 16, 1, 1024);
  auto max_source = args.get_int("max-source-len", 0, 1, 65536);  // 0: from the model
  auto max_len = args.get_int("max-len", 0, 2, 4096);
  auto threads = args.get_int("threads", 1, 0, 256);
  const auto backend = get_backend(args);
  if (!batch || !max_source || !max_len || !threads || !backend) return kExitUsage;

  TranslatorOptions topts;
  topts.limits = StepModelLimits{static_cast<size_t>(*batch), 1, static_cast<size_t>(*max_source),
                                 static_cast<size_t>(*max_len)};
  topts.threads = static_cast<size_t>(*threads);
  topts.limits.backend = *backend;
  std::unique_ptr<Model> model;
  Status st = Model::open(args.get("model"), load_options(args), &model);
  if (!st) return fail(st.message());
  if (const auto exit_code = check_length_flags(args, *model, topts.limits)) return *exit_code;
  std::unique_ptr<Translator> translator;
  st = Translator::create(*model, topts, &translator);
  if (!st) return fail(st.message());
  if (!args.has("tokens") && translator->conventions().kind != TokenizerKind::Whitespace) {
    return fail(std::string("this model's tokenizer (") + tokenizer_kind_name(translator->conventions().kind) +
                ") cannot read plain text yet; give space-separated tokens and pass --tokens");
  }
  ScoreBatch pending;
  std::string line;
  LineReader input(STDIN_FILENO);
  for (size_t index = 0;; ++index) {
    if (!pending.sources.empty() && !input.ready()) {  // the next line is not there yet: answer these now
      if (int rc = flush(*translator, &pending)) return rc;
    }
    if (!input.next(&line)) break;
    if (int rc = add_line(line, index, translator->max_source_tokens(), translator->limits().max_target_len, &pending)) {
      return rc;
    }
    if (pending.sources.size() == static_cast<size_t>(*batch)) {
      if (int rc = flush(*translator, &pending)) return rc;
    }
  }
  if (int rc = flush(*translator, &pending)) return rc;
  if (!input.error().empty()) return fail("reading the input: " + input.error());
  return kExitOk;
}

}  // namespace

HEED_REGISTER_COMMAND(score, "score", "log-probabilities of given translations ('source ||| target' lines)", 41,
                      run_score);

}  // namespace heed::cli
