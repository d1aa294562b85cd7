// `heed score`: log-probabilities of given translations (teacher forcing).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "args.h"
#include "command.h"
#include "line_reader.h"
#include "heed/tokenizer.h"
#include "heed/translator.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Reads lines 'SOURCE ||| TARGET' from stdin and prints, for each, the log-probability of every\n"
    "target token and then of the end token, space separated, one line per input line. Their sum is\n"
    "the log-probability of the whole target. Both sides are plain text, cut into tokens by the\n"
    "model's tokenizers, when the model has them inside (SentencePiece, as Marian and Argos\n"
    "conversions do); with --tokens, or for a model without them, they are space-separated tokens\n"
    "(unknown tokens map to the model's unknown token). A line without '|||' or longer than the\n"
    "limits is an error naming the line (exit 1).";

std::vector<OptionSpec> specs() {
  return {
      model_option("the model to score with (required)"),
      {"batch", 0, true, "N", "lines per batch (default 16)"},
      {"max-source-len", 0, true, "N", "longest accepted source in tokens (default: 256, or the model's positions)"},
      {"max-len", 0, true, "N", "longest accepted target in tokens, end token included (default: 256, or the "
                                "model's positions)"},
      threads_option(),
      spin_option(),
      backend_option(),
      {"tokens", 0, false, "", "input is space-separated tokens, not text (the only mode for models without a tokenizer inside)"},
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

// The model's text tokenizers, or none: the input is already space-separated tokens.
struct TextTokenizers {
  std::unique_ptr<Tokenizer> source, target;
};

// One side of a line as tokens: cut by the side's tokenizer, or split at spaces without one.
Status side_tokens(const Tokenizer* tokenizer, std::string_view text, std::vector<std::string>* tokens) {
  if (tokenizer == nullptr) {
    *tokens = Translator::split_tokens(text);
    return Status::success();
  }
  return tokenizer->encode_pieces(text, tokens);
}

// Splits line `index` into source and target tokens and adds them to the batch.
int add_line(const std::string& line, size_t index, size_t max_tokens, size_t max_len, const TextTokenizers& text,
             ScoreBatch* b) {
  const size_t bar = line.find("|||");
  if (bar == std::string::npos) return fail("line " + std::to_string(index + 1) + " has no '|||' between source and target");
  std::vector<std::string> src, tgt;
  Status st = side_tokens(text.source.get(), std::string_view(line).substr(0, bar), &src);
  if (st) st = side_tokens(text.target.get(), std::string_view(line).substr(bar + 3), &tgt);
  if (!st) return fail("line " + std::to_string(index + 1) + ": " + st.message());
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
  Args args("score", "-m MODEL.heed [--tokens] < 'source ||| target' lines", kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  auto batch = args.get_int("batch", 16, 1, 1024);
  auto max_source = args.get_int("max-source-len", 0, 1, 65536);  // 0: from the model
  auto max_len = args.get_int("max-len", 0, 2, 4096);
  auto threads = args.get_int("threads", 1, 0, 256);
  const auto spin = spin_flag(args);
  const auto backend = get_backend(args);
  if (!batch || !max_source || !max_len || !threads || !spin || !backend) return kExitUsage;

  TranslatorOptions topts;
  topts.limits = StepModelLimits{static_cast<size_t>(*batch), 1, static_cast<size_t>(*max_source),
                                 static_cast<size_t>(*max_len)};
  topts.threads = static_cast<size_t>(*threads);
  topts.spin_microseconds = *spin;
  topts.limits.backend = *backend;
  std::unique_ptr<Model> model;
  Status st = Model::open(args.get("model"), load_options(args), &model);
  if (!st) return fail(st.message());
  if (const auto exit_code = check_length_flags(args, *model, topts.limits)) return *exit_code;
  std::unique_ptr<Translator> translator;
  st = Translator::create(*model, topts, &translator);
  if (!st) return fail(st.message());
  TextTokenizers text;
  if (!args.has("tokens") && translator->conventions().kind != TokenizerKind::Whitespace) {
    st = create_tokenizer(*model, TokenizerSide::kSource, &text.source);
    if (st) st = create_tokenizer(*model, TokenizerSide::kTarget, &text.target);
    if (!st) return fail(st.message());
  }
  ScoreBatch pending;
  std::string line;
  LineReader input(STDIN_FILENO);
  for (size_t index = 0;; ++index) {
    if (!pending.sources.empty() && !input.ready()) {  // the next line is not there yet: answer these now
      if (int rc = flush(*translator, &pending)) return rc;
    }
    if (!input.next(&line)) break;
    if (int rc = add_line(line, index, translator->max_source_tokens(), translator->limits().max_target_len, text,
                          &pending)) {
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
