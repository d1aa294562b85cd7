// `heed translate`: translates stdin to stdout, one output line per input line. Plain-text lines
// (paragraphs) are split into sentences; sentences are translated in batches of similar length.
#include <algorithm>
#include <optional>
#include <cstdio>
#include <sstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "args.h"
#include "command.h"
#include "decoding_flags.h"
#include "source_files.h"
#include "heed/decoding.h"
#include "heed/text_translator.h"
#include "heed/translator.h"
#include "translate_stream.h"

namespace heed::cli {
namespace {

constexpr uint64_t kMaxPrefixFileBytes = uint64_t{256} << 20;

constexpr const char* kDescription =
    "Reads text from stdin, one paragraph per line, and writes its translation to stdout in the same\n"
    "order, one line per input line. With --n-best N > 1 (or --with-scores) every hypothesis is a line\n"
    "'I ||| HYPOTHESIS ||| SCORE' where I is the 0-based input line index, best first.\n"
    "\n"
    "Paragraphs: plain text (a model with a SentencePiece tokenizer, no --tokens) is split into\n"
    "sentences, since models are trained on sentences: by Unicode's sentence rules (ICU) and the\n"
    "abbreviations of the source language (the model's source_language, or --source-lang; \"z. B.\",\n"
    "\"Mr.\", initials and, in German and other languages that write them so, \"3.\" do not end one).\n"
    "A line that is not valid UTF-8 is written as an empty line (exit status 1 at the end).\n"
    "The line's output is its sentences' translations joined by one space. --no-split\n"
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
    "reads and writes space-separated tokens of its vocabularies (when most words of a line are not\n"
    "in its source vocabulary, a warning says so, once). --tokens makes input, prefixes and output\n"
    "space-separated tokens for every model (unknown tokens map to the unknown token).\n"
    "\n"
    "An empty input line gives an empty output line (n-best: one line 'I |||  ||| 0').\n"
    "Lengths: --max-source-len and --max-len default to 256, or to the model's positions when it has\n"
    "fewer (a learned position table); larger values than the model's are refused. A sentence with\n"
    "more tokens than --max-source-len allows is truncated to its first tokens, as CTranslate2's\n"
    "max_input_length does (an end token the model reads stays last), with one warning naming the\n"
    "line on stderr. --on-long-input error reports the line instead and writes it as an empty line\n"
    "(n-best: 'I |||  ||| 0'); the other lines are translated all the same, and the exit status is 1.\n"
    "Either way every input line gets its output line. Decoding: --beam 1 is greedy search (or\n"
    "sampling with --sampling-topk).\n"
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
    "Vocabulary shortlist: with --use-vmap, a model converted with --vmap computes the output\n"
    "projection over the target candidates of each batch's source n-grams only (its map's, plus the\n"
    "unknown, start and end tokens and forced prefixes); faster, and the same tokens whenever the\n"
    "map holds the tokens chosen. Scores are then normalized over the candidates.\n"
    "\n"
    "Capturing attention keeps every step's attention of every hypothesis in memory, so with either\n"
    "option --batch defaults to 1.";

std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> specs = {
      model_option("the model to translate with (required)"),
      {"beam", 'b', true, "N", "beam size (default 2; 1: greedy)"},
      {"n-best", 'n', true, "N", "hypotheses per sentence, at most the beam size (default 1)"},
      {"max-len", 0, true, "N", "maximum target tokens, end token included (default 256, or the model's "
                                "positions if fewer)"},
      {"min-len", 0, true, "N", "minimum target tokens before the end token (default 1: never empty)"},
      {"length-penalty", 0, true, "X", "score = log-prob / length^X, end token counted (default 1; 0: raw log-prob)"},
      {"patience", 0, true, "X", "beam search stops after round(beam x X) finished hypotheses (default 1)"},
      {"batch", 0, true, "N", "sentences per batch (default 16; 1 with --attention or --attention-json)"},
      {"read-ahead", 0, true, "N", "batches read ahead and sorted by length (default 8; 1: batches in input order)"},
      {"max-line-bytes", 0, true, "N", "a longer input line is reported, written as an empty line and dropped "
                                       "(default 1048576; the exit status is then 1)"},
      {"max-source-len", 0, true, "N", "longest source in tokens (default 256, or the model's positions if fewer)"},
      {"on-long-input", 0, true, "MODE", "a longer source: truncate (default; a warning names the line) or error "
                                         "(written as an empty line; the exit status is then 1)"},
      threads_option(),
      spin_option(),
      backend_option(),
      {"prefix-file", 0, true, "FILE", "target prefixes (tokens), one line per input line (a regular file)"},
      {"top-k", 0, true, "K", "with --beam 1: sample among the K best tokens (0: all; default 1: greedy)",
       {"sampling-topk"}},
      {"temperature", 0, true, "T", "sampling temperature (default 1)", {"sampling-temperature"}},
      {"top-p", 0, true, "P", "sample from the smallest set of tokens reaching probability P (default 1)",
       {"sampling-topp"}},
      {"seed", 0, true, "N", "random seed for sampling (default 0)"},
      {"with-scores", 0, false, "", "print 'I ||| HYPOTHESIS ||| SCORE' lines even for one hypothesis"},
      {"return-alternatives", 0, false, "", "the --n-best most likely tokens after the prefix, each continued greedily "
                                            "(CTranslate2's return_alternatives; --beam defaults to 1)"},
      {"use-vmap", 0, false, "", "decode over each batch's vocabulary shortlist (a model converted with "
                                 "heed convert --vmap; CTranslate2's use_vmap)"},
      {"tokens", 0, false, "", "input and output are space-separated tokens"},
      {"no-split", 0, false, "", "translate each input line as one sentence (no sentence splitting)"},
      {"source-lang", 0, true, "LANG", "split sentences by the rules and abbreviations of this language (a code "
                                       "such as de or pt-BR; default: the model's source_language, else none)"},
      {"attention", 0, true, "FILE.svg", "write the attention heatmaps of the best hypotheses as SVG"},
      {"attention-json", 0, true, "FILE", "write the attention matrices as JSON lines"},
      no_mmap_option(),
      no_progress_option(),
  };
  for (OptionSpec& o : decoding_control_options()) specs.push_back(std::move(o));
  return specs;
}

// The reading side of the settings: model, input batching, long lines, sentence splitting,
// prefixes. Returns the exit code to leave with, or nullopt to go on.
std::optional<int> parse_input_settings(Args& args, TranslateSettings* s) {
  auto batch = args.get_int("batch", s->capture() ? 1 : 16, 1, 1024);
  auto read_ahead = args.get_int("read-ahead", 8, 1, 1024);
  auto max_line_bytes = args.get_int("max-line-bytes", 1 << 20, 1, int64_t{1} << 40);
  if (!batch || !read_ahead || !max_line_bytes) return kExitUsage;
  const std::string on_long_input = args.get("on-long-input", "truncate");
  if (on_long_input != "truncate" && on_long_input != "error") {
    return args.usage_error("--on-long-input wants truncate or error, got '" + on_long_input + "'");
  }
  s->truncate_long = on_long_input == "truncate";
  s->model_path = args.get("model");
  s->load = load_options(args);
  s->batch = static_cast<size_t>(*batch);
  s->read_ahead = static_cast<size_t>(*read_ahead);
  s->max_line_bytes = static_cast<size_t>(*max_line_bytes);
  s->tokens = args.has("tokens");
  s->no_split = args.has("no-split");
  s->source_language = args.get("source-lang");
  if (args.has("source-lang")) {  // checked here: a usage error, before the model is read
    std::unique_ptr<SentenceSplitter> probe;
    const Status language = SentenceSplitter::create(s->source_language, &probe);
    if (!language) return args.usage_error("--source-lang: " + language.message());
  }
  s->with_scores = args.has("with-scores");
  s->prefix_path = args.get("prefix-file");
  s->progress = !args.has("no-progress");
  return std::nullopt;
}

// The command line as settings; returns the exit code to leave with, or nullopt to go on.
std::optional<int> parse_settings(Args& args, const std::vector<std::string>& argv, TranslateSettings* s,
                                  ControlFlags* controls) {
  if (const auto exit_code = parse_model_command(args, argv)) return exit_code;
  if (!get_control_flags(args, controls)) return kExitUsage;
  s->attention_svg_path = args.get("attention");
  s->attention_json_path = args.get("attention-json");
  if (const auto exit_code = parse_input_settings(args, s)) return exit_code;
  const bool alternatives = args.has("return-alternatives");
  auto beam = args.get_int("beam", alternatives ? 1 : 2, 1, 64);
  auto n_best = args.get_int("n-best", 1, 1, 64);
  // Lengths not given are 0: the Translator's default for the model (256, or its positions if fewer).
  auto max_len = args.get_int("max-len", 0, 1, 4096);
  auto min_len = args.get_int("min-len", 1, 0, 4096);
  auto max_source = args.get_int("max-source-len", 0, 1, 65536);
  auto top_k = args.get_int("top-k", 1, 0, 1 << 30);
  auto threads = args.get_int("threads", 1, 0, 256);
  const auto spin = spin_flag(args);
  const auto backend = get_backend(args);
  auto seed = args.get_int("seed", 0, 0, INT64_MAX);
  auto penalty = args.get_double("length-penalty", 1.0);
  auto patience = args.get_double("patience", 1.0);
  auto temperature = args.get_double("temperature", 1.0);
  auto top_p = args.get_double("top-p", 1.0);
  if (!beam || !n_best || !max_len || !min_len || !max_source || !top_k || !threads || !spin ||
      !backend || !seed || !penalty || !patience || !temperature || !top_p) {
    return kExitUsage;
  }
  if (!(*patience > 0 && *patience <= 1000)) return args.usage_error("--patience must be in (0, 1000]");
  TranslatorOptions& t = s->translator;
  // Alternatives run their n_best rows as one sentence's beam.
  const size_t rows = alternatives ? std::max(*beam, *n_best) : *beam;
  t.limits = StepModelLimits{s->batch, rows, static_cast<size_t>(*max_source), static_cast<size_t>(*max_len)};
  t.limits.capture_attention = s->capture();
  t.limits.backend = *backend;
  t.max_n_best = static_cast<size_t>(*n_best);
  t.threads = static_cast<size_t>(*threads);
  t.spin_microseconds = *spin;
  // The flags by the runtime's names (heed/decode_option_keys.h: its fields and ranges).
  DecodeOptions& d = s->decode;
  const bool keyed =
      set_decode_flag(args, &d, "beam", "beam_size", *beam) && set_decode_flag(args, &d, "n-best", "num_hypotheses", *n_best) &&
      set_decode_flag(args, &d, "max-len", "max_decoding_length", *max_len) &&
      set_decode_flag(args, &d, "min-len", "min_decoding_length", *min_len) &&
      set_decode_flag(args, &d, "length-penalty", "length_penalty", *penalty) &&
      set_decode_flag(args, &d, "patience", "patience", *patience) && set_decode_flag(args, &d, "top-k", "sampling_topk", *top_k) &&
      set_decode_flag(args, &d, "temperature", "sampling_temperature", *temperature) &&
      set_decode_flag(args, &d, "top-p", "sampling_topp", *top_p) && set_decode_flag(args, &d, "seed", "seed", *seed) &&
      set_decode_flag(args, &d, "return-alternatives", "return_alternatives", int64_t{alternatives}) &&
      set_decode_flag(args, &d, "use-vmap", "use_vmap", int64_t{args.has("use-vmap")});
  if (!keyed) return kExitUsage;
  // The runtime's own check of the decoding options, as a usage error before anything is opened.
  const Status checked = check_decode_options(d, t.limits);
  if (!checked) return args.usage_error(checked.message());
  return std::nullopt;
}


int run_translate(const std::vector<std::string>& argv) {
  Args args("translate", "-m MODEL.heed [options] < input > output", kDescription, specs());
  TranslateSettings settings;
  ControlFlags control_flags;
  if (const auto exit_code = parse_settings(args, argv, &settings, &control_flags)) return *exit_code;
  // Read whole through the converter's checked reader: a regular file of bounded size (a FIFO or
  // /dev/zero given as the prefix file is refused at once instead of blocking or filling memory).
  std::istringstream prefix_file;
  if (!settings.prefix_path.empty()) {
    std::string text;
    const Status read = convert::read_text(settings.prefix_path, &text, kMaxPrefixFileBytes);
    if (!read) return translate_error("--prefix-file: " + read.message());
    prefix_file.str(std::move(text));
  }
  // The model outlives the translator and the tokenizers made from it.
  std::unique_ptr<Model> model;
  Status st = Model::open(settings.model_path, settings.load, &model);
  if (!st) return translate_error(st.message());
  if (const auto exit_code = check_length_flags(args, *model, settings.translator.limits)) return *exit_code;
  std::unique_ptr<Translator> translator;
  st = Translator::create(*model, settings.translator, &translator);
  if (!st) return translate_error(st.message());
  settings.decode.max_length = translator->limits().max_target_len;  // --max-len, or the model's default
  // The controls' tokens are target tokens.
  ControlIds control_ids;
  st = control_ids.map(control_flags, [&](const std::string& t) { return translator->target_vocabulary().id(t); });
  if (!st) return translate_error(st.message());
  control_ids.bind(control_flags, &settings.decode.controls);
  // Plain text goes through the model's tokenizers unless it is already tokens.
  std::unique_ptr<TextTranslator> text;
  st = TextTranslator::create(*model, *translator, TranslateStream::text_options(settings), &text);
  if (!st) return translate_error(st.message());
  TranslateStream stream(settings, *text, settings.prefix_path.empty() ? nullptr : &prefix_file);
  if (int rc = stream.run(STDIN_FILENO)) return rc;
  return stream.write_attention_files();
}

}  // namespace

HEED_REGISTER_COMMAND(translate, "translate", "translate sentences (stdin -> stdout) with an encoder-decoder model", 40,
                      run_translate);

}  // namespace heed::cli
