// `heed translate`: translates stdin to stdout, one output line per input line. Plain-text lines
// (paragraphs) are split into sentences; sentences are translated in batches of similar length.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "args.h"
#include "attention_view.h"
#include "command.h"
#include "heed_writer.h"
#include "line_reader.h"
#include "heed/sentence_splitter.h"
#include "heed/tokenizer.h"
#include "heed/translator.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Reads text from stdin, one paragraph per line, and writes its translation to stdout in the same\n"
    "order, one line per input line. With --n-best N > 1 (or --with-scores) every hypothesis is a line\n"
    "'I ||| HYPOTHESIS ||| SCORE' where I is the 0-based input line index, best first.\n"
    "\n"
    "Paragraphs: plain text (a model with a SentencePiece tokenizer, no --tokens) is split into\n"
    "sentences, since models are trained on sentences: a sentence ends after . ! ? or an ellipsis\n"
    "(closing quotes and brackets included) followed by a space and an uppercase letter, digit or\n"
    "opening quote, and after the CJK full stops; common abbreviations (Mr., e.g., No. 5, initials)\n"
    "do not end one. The line's output is its sentences' translations joined by one space. --no-split\n"
    "translates every line as one sentence, as do --n-best above 1, --with-scores, --prefix-file,\n"
    "--attention and --attention-json (their output is per line).\n"
    "\n"
    "Batches: up to --read-ahead x --batch sentences are read ahead and translated shortest first, in\n"
    "batches of --batch, so batches hold sentences of similar length (the output does not depend on\n"
    "--batch or --read-ahead, except when sampling). Reading ahead never waits for input: when the\n"
    "next line is not there yet (a terminal, a program writing line by line), the lines read so far\n"
    "are translated and written at once.\n"
    "\n"
    "Input and output are plain UTF-8 text: a model with a SentencePiece tokenizer splits each line\n"
    "with its source model (adding the end token when the model was trained so) and its best\n"
    "hypotheses are detokenized with the target model; a model whose tokenizer is 'whitespace'\n"
    "reads and writes space-separated tokens of its vocabularies. --tokens makes input, prefixes and\n"
    "output space-separated tokens for every model (unknown tokens map to the unknown token).\n"
    "\n"
    "An empty input line gives an empty output line (n-best: one line 'I |||  ||| 0').\n"
    "A sentence with more tokens than --max-source-len is an error naming the line (exit 1): nothing is\n"
    "truncated silently. Decoding: --beam 1 is greedy search (or sampling with --sampling-topk).\n"
    "The defaults are CTranslate2's translate defaults (beam 2, length penalty 1, min length 1,\n"
    "max length 256, patience 1) and beam search is CTranslate2's algorithm, so outputs match it.\n"
    "Scores are the sum of the token log-probs after the prefix / length^length-penalty, the\n"
    "length counting the prefix and the end token (as CTranslate2 does).\n"
    "\n"
    "Attention you can see: --attention FILE.svg writes one SVG document with a heatmap block per\n"
    "non-empty input line (its best hypothesis): rows are the target tokens (the end token last),\n"
    "columns the source tokens the model read (BOS/EOS it adds included), white 0 to dark blue 1.\n"
    "RNN models show their one attention; Transformers show the cross-attention of each head of\n"
    "the last decoder layer and the mean of those heads. --attention-json FILE writes one JSON\n"
    "object per such line: {\"line\", \"source\", \"target\", \"layers\", \"heads\", \"panels\":\n"
    "[{\"layer\", \"head\", \"weights\": [one array over the source per target token]}]} with every\n"
    "layer and head (line, layer and head 0-based; the SVG numbers lines from 1). Both files are\n"
    "written atomically once all input is translated.\n"
    "Capturing attention keeps every step's attention of every hypothesis in memory, so with either\n"
    "option --batch defaults to 1.";

std::vector<OptionSpec> specs() {
  return {
      {"model", 'm', true, "MODEL.heed", "the model to translate with (required)"},
      {"beam", 'b', true, "N", "beam size (default 2; 1: greedy)"},
      {"n-best", 'n', true, "N", "hypotheses per sentence, at most the beam size (default 1)"},
      {"max-len", 0, true, "N", "maximum target tokens, end token included (default 256)"},
      {"min-len", 0, true, "N", "minimum target tokens before the end token (default 1: never empty)"},
      {"length-penalty", 0, true, "X", "score = log-prob / length^X, end token counted (default 1; 0: raw log-prob)"},
      {"patience", 0, true, "X", "beam search stops after round(beam x X) finished hypotheses (default 1)"},
      {"batch", 0, true, "N", "sentences per batch (default 16; 1 with --attention or --attention-json)"},
      {"read-ahead", 0, true, "N", "batches read ahead and sorted by length (default 8; 1: batches in input order)"},
      {"max-source-len", 0, true, "N", "longest accepted source in tokens (default 256)"},
      {"threads", 0, true, "N", "worker threads (default 1; 0: one per core); same output for any N"},
      backend_option(),
      {"prefix-file", 0, true, "FILE", "target prefixes (tokens), one line per input line"},
      {"sampling-topk", 0, true, "K", "with --beam 1: sample among the K best tokens (0: all; default 1: greedy)"},
      {"sampling-temperature", 0, true, "T", "sampling temperature (default 1)"},
      {"sampling-topp", 0, true, "P", "sample from the smallest set of tokens reaching probability P (default 1)"},
      {"seed", 0, true, "N", "random seed for sampling (default 0)"},
      {"with-scores", 0, false, "", "print 'I ||| HYPOTHESIS ||| SCORE' lines even for one hypothesis"},
      {"tokens", 0, false, "", "input and output are space-separated tokens"},
      {"no-split", 0, false, "", "translate each input line as one sentence (no sentence splitting)"},
      {"attention", 0, true, "FILE.svg", "write the attention heatmaps of the best hypotheses as SVG"},
      {"attention-json", 0, true, "FILE", "write the attention matrices as JSON lines"},
  };
}

// One sentence to translate.
struct Pending {
  size_t line_index;
  std::vector<std::string> tokens;
  std::vector<std::string> prefix;
};

// One input line of the read-ahead window: its sentences are pending[first, first + count).
struct WindowLine {
  size_t first = 0, count = 0;
};

std::string join(const std::vector<std::string>& tokens) {
  std::string s;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (i) s += ' ';
    s += tokens[i];
  }
  return s;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "heed translate: %s\n", message.c_str());
  return kExitError;
}

int run_translate(const std::vector<std::string>& argv) {
  Args args("translate", "-m MODEL.heed [options] < input > output", kDescription, specs());
  if (!args.parse(argv)) return kExitUsage;
  if (args.help_requested()) return kExitOk;
  if (!args.positionals().empty()) return args.usage_error("unexpected argument '" + args.positionals()[0] + "'");
  if (!args.has("model")) return args.usage_error("missing --model MODEL.heed");
  auto beam = args.get_int("beam", 2, 1, 64);
  auto n_best = args.get_int("n-best", 1, 1, 64);
  auto max_len = args.get_int("max-len", 256, 1, 4096);
  auto min_len = args.get_int("min-len", 1, 0, 4096);
  const bool svg_attention = args.has("attention"), json_attention = args.has("attention-json");
  const bool capture = svg_attention || json_attention;
  auto batch = args.get_int("batch", capture ? 1 : 16, 1, 1024);
  auto read_ahead = args.get_int("read-ahead", 8, 1, 1024);
  auto max_source = args.get_int("max-source-len", 256, 1, 65536);
  auto top_k = args.get_int("sampling-topk", 1, 0, 1 << 30);
  auto threads = args.get_int("threads", 1, 0, 256);
  const auto backend = get_backend(args);
  auto seed = args.get_int("seed", 0, 0, INT64_MAX);
  auto penalty = args.get_double("length-penalty", 1.0);
  auto patience = args.get_double("patience", 1.0);
  auto temperature = args.get_double("sampling-temperature", 1.0);
  auto top_p = args.get_double("sampling-topp", 1.0);
  if (!beam || !n_best || !max_len || !min_len || !batch || !read_ahead || !max_source || !top_k || !threads || !backend || !seed || !penalty || !patience ||
      !temperature || !top_p) {
    return kExitUsage;
  }
  if (*n_best > *beam) return args.usage_error("--n-best " + std::to_string(*n_best) + " is above --beam " + std::to_string(*beam));
  if (*top_k != 1 && *beam != 1) return args.usage_error("sampling (--sampling-topk other than 1) needs --beam 1");
  if (*top_k != 1 && !(*temperature > 0)) return args.usage_error("--sampling-temperature must be above 0");
  if (!(*top_p > 0 && *top_p <= 1)) return args.usage_error("--sampling-topp must be in (0, 1]");
  if (!(*patience > 0 && *patience <= 1000)) return args.usage_error("--patience must be in (0, 1000]");
  if (*beam > 1 && static_cast<double>(*n_best) > std::round(static_cast<float>(*beam) * static_cast<float>(*patience))) {
    return args.usage_error("--n-best " + std::to_string(*n_best) + " is above round(--beam x --patience)");
  }

  std::ifstream prefix_file;
  const bool use_prefixes = args.has("prefix-file");
  if (use_prefixes) {
    prefix_file.open(args.get("prefix-file"));
    if (!prefix_file) return fail("cannot open prefix file '" + args.get("prefix-file") + "'");
  }

  TranslatorOptions topts;
  topts.limits = StepModelLimits{static_cast<size_t>(*batch), static_cast<size_t>(*beam),
                                 static_cast<size_t>(*max_source), static_cast<size_t>(*max_len)};
  topts.limits.capture_attention = capture;
  topts.max_n_best = static_cast<size_t>(*n_best);
  topts.threads = static_cast<size_t>(*threads);
  topts.limits.backend = *backend;
  // The model outlives the translator and the tokenizers made from it.
  std::unique_ptr<Model> model;
  Status st = Model::open(args.get("model"), LoadOptions{}, &model);
  if (!st) return fail(st.message());
  std::unique_ptr<Translator> translator;
  st = Translator::create(*model, topts, &translator);
  if (!st) return fail(st.message());
  // Plain text goes through the model's tokenizers unless it is already tokens.
  std::unique_ptr<Tokenizer> source_tokenizer, target_tokenizer;
  if (!args.has("tokens") && translator->conventions().kind != TokenizerKind::Whitespace) {
    st = create_tokenizer(*model, TokenizerSide::kSource, &source_tokenizer);
    if (st) st = create_tokenizer(*model, TokenizerSide::kTarget, &target_tokenizer);
    if (!st) return fail(st.message());
  }
  const bool text_mode = source_tokenizer != nullptr;
  // One hypothesis as output text: detokenized, or its tokens joined with spaces.
  auto render = [&](const TranslationHypothesis& h, std::string* out) -> Status {
    if (!text_mode) {
      *out = join(h.tokens);
      return Status::ok();
    }
    return target_tokenizer->decode(h.ids.data(), h.ids.size(), out);
  };

  DecodeOptions dopts;
  dopts.beam_size = static_cast<size_t>(*beam);
  dopts.n_best = static_cast<size_t>(*n_best);
  dopts.max_length = static_cast<size_t>(*max_len);
  dopts.min_length = static_cast<size_t>(*min_len);
  dopts.length_penalty = static_cast<float>(*penalty);
  dopts.patience = static_cast<float>(*patience);
  dopts.sampling_top_k = static_cast<size_t>(*top_k);
  dopts.sampling_temperature = static_cast<float>(*temperature);
  dopts.sampling_top_p = static_cast<float>(*top_p);
  dopts.seed = static_cast<uint64_t>(*seed);
  const bool scored_lines = *n_best > 1 || args.has("with-scores");
  const size_t max_tokens = translator->max_source_tokens();

  // Attention of each non-empty line's best hypothesis, for the files written at the end.
  std::vector<AttentionRecord> records;
  std::string json_lines;
  const TokenConventions& conventions = translator->conventions();
  const Vocabulary& target_vocabulary = translator->target_vocabulary();
  auto record_attention = [&](size_t line, const std::vector<std::string>& source,
                              const TranslationHypothesis& h) -> Status {
    AttentionRecord r;
    r.line = line;
    // Labels by id (an id without a vocabulary entry shows as its number).
    const auto label = [&](int32_t id) {
      return id >= 0 && static_cast<size_t>(id) < target_vocabulary.size() ? target_vocabulary.token(id)
                                                                          : std::to_string(id);
    };
    // The columns are what the model read: the source tokens with the BOS/EOS it adds.
    if (conventions.add_source_bos) r.source.push_back(label(conventions.bos_id));
    r.source.insert(r.source.end(), source.begin(), source.end());
    if (conventions.add_source_eos) r.source.push_back(label(conventions.eos_id));
    for (int32_t id : h.ids) r.target.push_back(label(id));
    if (h.token_log_probs.size() > h.ids.size()) r.target.push_back(label(conventions.eos_id));
    if (h.attention_panels == 0 || h.attention_heads == 0 || h.attention_source_len != r.source.size() ||
        h.attention.size() != r.target.size() * h.attention_panels * r.source.size()) {
      return Status(StatusCode::kInternal, "the model returned no attention matrix of the expected shape");
    }
    r.heads = h.attention_heads;
    r.layers = h.attention_panels / h.attention_heads;
    r.weights = h.attention;
    if (json_attention) json_lines += attention_json_line(r) + "\n";
    if (svg_attention) records.push_back(std::move(r));
    return Status::ok();
  };

  // Paragraph lines become sentences only where each line has one output line (see --help).
  const bool split = text_mode && !args.has("no-split") && !scored_lines && !use_prefixes && !capture;
  // Lines are read ahead by windows of whole lines: the window's sentences are translated together
  // (Translator::translate_tokens batches them shortest first), then its lines are written in
  // order. A window also ends where the next line is not there yet, so nobody waits for an answer
  // to what they already sent.
  const size_t window = static_cast<size_t>(*batch) * static_cast<size_t>(*read_ahead);
  std::vector<WindowLine> lines;  // the window's input lines, in order
  std::vector<Pending> pending;   // their sentences
  size_t first_line = 0;          // index of lines[0]
  auto flush = [&]() -> int {
    std::vector<std::vector<TranslationHypothesis>> results;
    std::vector<std::vector<std::string>> sources, prefixes;
    if (!pending.empty()) {
      for (auto& p : pending) {
        sources.push_back(std::move(p.tokens));
        prefixes.push_back(std::move(p.prefix));
      }
      Status s = translator->translate_tokens(sources, dopts, use_prefixes ? &prefixes : nullptr, &results);
      if (!s) {
        return fail("lines " + std::to_string(pending.front().line_index + 1) + "-" +
                    std::to_string(pending.back().line_index + 1) + ": " + s.message());
      }
    }
    std::string text, hypothesis;
    std::vector<std::string> sentences;
    for (size_t l = 0; l < lines.size(); ++l) {
      const size_t line = first_line + l;
      const WindowLine& w = lines[l];
      text.clear();
      if (w.count == 0) {  // nothing to translate: an empty line (scored: an empty hypothesis)
        text = scored_lines ? std::to_string(line) + " |||  ||| 0\n" : "\n";
      } else if (!scored_lines) {
        // The best hypothesis of each sentence, joined into the line.
        sentences.clear();
        for (size_t i = w.first; i < w.first + w.count; ++i) {
          if (results[i].empty()) continue;
          if (capture) {
            Status a = record_attention(line, sources[i], results[i][0]);
            if (!a) return fail("line " + std::to_string(line + 1) + ": " + a.message());
          }
          Status r = render(results[i][0], &hypothesis);
          if (!r) return fail("line " + std::to_string(line + 1) + ": " + r.message());
          sentences.push_back(hypothesis);
        }
        text = join_sentences(sentences) + "\n";
      } else {
        // Scored lines: the line is one sentence (no splitting), each hypothesis on its own line.
        const size_t i = w.first;
        if (capture && !results[i].empty()) {
          Status a = record_attention(line, sources[i], results[i][0]);
          if (!a) return fail("line " + std::to_string(line + 1) + ": " + a.message());
        }
        for (const TranslationHypothesis& h : results[i]) {
          Status r = render(h, &hypothesis);
          if (!r) return fail("line " + std::to_string(line + 1) + ": " + r.message());
          char score[64];
          std::snprintf(score, sizeof score, "%.6f", h.score);
          text += std::to_string(line) + " ||| " + hypothesis + " ||| " + score + "\n";
        }
      }
      std::fputs(text.c_str(), stdout);
    }
    std::fflush(stdout);
    first_line += lines.size();
    lines.clear();
    pending.clear();
    return kExitOk;
  };

  // Adds one sentence (or unsplit line) of line `index` to the window (nonzero: the exit code).
  auto add_sentence = [&](size_t index, std::string_view sentence, std::vector<std::string> prefix) -> int {
    std::vector<std::string> tokens;
    if (text_mode) {
      Status p = source_tokenizer->encode_pieces(sentence, &tokens);
      if (!p) return fail("line " + std::to_string(index + 1) + ": " + p.message());
    } else {
      tokens = Translator::split_tokens(sentence);
    }
    if (tokens.size() > max_tokens) {
      return fail("line " + std::to_string(index + 1) + (split ? " has a sentence of " : " has ") +
                  std::to_string(tokens.size()) + " tokens, more than --max-source-len allows (" +
                  std::to_string(max_tokens) + ")");
    }
    if (tokens.empty()) return kExitOk;  // nothing the model reads: contributes no output
    pending.push_back(Pending{index, std::move(tokens), std::move(prefix)});
    ++lines.back().count;
    return kExitOk;
  };

  std::string line, prefix_line;
  size_t index = 0;
  LineReader input(STDIN_FILENO);
  for (;;) {
    if (!lines.empty() && !input.ready()) {
      if (int rc = flush()) return rc;
    }
    if (!input.next(&line)) break;
    std::vector<std::string> prefix;
    if (use_prefixes) {
      if (!std::getline(prefix_file, prefix_line)) {
        return fail("prefix file has fewer lines than the input (no prefix for line " + std::to_string(index + 1) + ")");
      }
      if (text_mode) {
        Status p = target_tokenizer->encode_pieces(prefix_line, &prefix);
        if (!p) return fail("prefix of line " + std::to_string(index + 1) + ": " + p.message());
      } else {
        prefix = Translator::split_tokens(prefix_line);
      }
    }
    if (prefix.size() > dopts.max_length) {
      return fail("prefix of line " + std::to_string(index + 1) + " has " + std::to_string(prefix.size()) +
                  " tokens, more than --max-len " + std::to_string(dopts.max_length));
    }
    lines.push_back(WindowLine{pending.size(), 0});
    if (split) {
      SentenceSplitter splitter(line);
      std::string_view sentence;
      while (splitter.next(&sentence)) {
        if (int rc = add_sentence(index, sentence, {})) return rc;
      }
    } else {
      if (int rc = add_sentence(index, line, std::move(prefix))) return rc;
    }
    ++index;
    if (pending.size() >= window || lines.size() >= window) {
      if (int rc = flush()) return rc;
    }
  }
  if (int rc = flush()) return rc;  // what was read before an error is still translated
  if (!input.error().empty()) return fail("reading the input: " + input.error());
  const auto write = [&](const std::string& path, const std::string& text) -> int {
    Status w = convert::write_file_atomically(path, std::vector<uint8_t>(text.begin(), text.end()));
    return w ? kExitOk : fail(w.message());
  };
  if (json_attention) {
    if (int rc = write(args.get("attention-json"), json_lines)) return rc;
  }
  if (svg_attention) {
    if (int rc = write(args.get("attention"), attention_svg(records))) return rc;
  }
  return kExitOk;
}

}  // namespace

HEED_REGISTER_COMMAND(translate, "translate", "translate sentences (stdin -> stdout) with an encoder-decoder model", 40,
                      run_translate);

}  // namespace heed::cli
