// `heed bench`: how fast and how large a model is on this device — load time, time to the first
// result, decoding speed, per-batch latency percentiles, peak resident memory.
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "heed/embedder.h"
#include "heed/generator.h"
#include "heed/kernels.h"
#include "heed/model.h"
#include "heed/translator.h"
#include "json_output.h"

namespace heed::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kDescription =
    "Measures a model on this device and prints: the time to open it and create a session, the\n"
    "time from the start of the command to the first result, the speed in target (or embedded)\n"
    "tokens and in sentences per second (median of --repeat timed passes after --warmup untimed\n"
    "ones), the latency of each batch (percentiles over all timed passes) and the peak resident\n"
    "memory of the process.\n"
    "\n"
    "Translation models (Transformer encoder-decoder, RNN seq2seq) translate --sentences sources\n"
    "of --source-len tokens, drawn with a fixed seed from the source vocabulary (special tokens\n"
    "excluded), or the lines of --input FILE (space-separated vocabulary tokens), --batch at a\n"
    "time with --beam. Each sentence decodes exactly --length target tokens (minimum = maximum\n"
    "length, so a model cannot stop early and every run does the same work); --length 0 decodes\n"
    "until the end token (at most 256, or the model's target positions). Language models\n"
    "(decoder-only) generate --length tokens greedily from the start token, --sentences times per\n"
    "pass (--batch and --beam do not apply). Embedding models (encoder-only) embed --sentences\n"
    "sentences of --source-len tokens ([CLS] and [SEP] included) cut from a built-in English text,\n"
    "or the lines of --input FILE as plain text (tokenized and cut to the model's length as `heed\n"
    "embed` does), --batch at a time (--beam and --length do not apply).\n"
    "\n"
    "--threads gives the session worker threads (the output is the same for any count): they split\n"
    "each GEMM and attention loop, or take whole chunks of an encoder batch's sentences.\n"
    "\n"
    "Counted tokens are decoder steps (the end token counts, forced steps do not exist here), or for\n"
    "embedding models the tokens embedded; speed also gives sentences (or generations) per second.\n"
    "Exit status: 0 done, 1 error (one line on stderr), 2 wrong usage.";

std::vector<OptionSpec> specs() {
  return {
      model_option(),
      {"batch", 0, true, "N", "sentences per batch (default 1)"},
      {"beam", 'b', true, "N", "beam size (default 1: greedy)"},
      {"sentences", 0, true, "N", "synthetic sources per pass (default 16)"},
      {"source-len", 0, true, "N", "tokens per synthetic source (default 32)"},
      {"input", 'i', true, "FILE", "sources from a file, one per line, as tokens (instead of synthetic)"},
      {"length", 'l', true, "N", "target tokens per sentence, end token included (default 32; 0: free)"},
      {"repeat", 'r', true, "N", "timed passes (default 5)"},
      {"warmup", 'w', true, "N", "untimed passes first (default 1)"},
      threads_option(),
      spin_option(),
      backend_option(),
      {"use-vmap", 0, false, "", "translation models converted with --vmap: decode over each batch's vocabulary "
                                 "shortlist (as heed translate --use-vmap)"},
      {"json", 0, false, "", "print one JSON object instead of the table"},
      no_mmap_option(),
  };
}

int fail(const std::string& message) {
  std::fprintf(stderr, "heed bench: %s\n", message.c_str());
  return kExitError;
}

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(i, values.size() - 1)];
}

struct Settings {
  size_t batch = 1, beam = 1, sentences = 16, source_len = 32, length = 32, repeat = 5, warmup = 1, threads = 1;
  uint32_t spin_microseconds = 100;
  bool use_vmap = false;
  Backend backend = Backend::kAuto;
  LoadOptions load;
};

struct Result {
  double open_ms = 0, first_ms = 0;
  std::vector<double> pass_tokens_per_s;
  std::vector<double> batch_ms;
  size_t tokens_per_pass = 0, sentences_per_pass = 0;
};

// The options every session type shares.
template <typename Options>
void set_session_options(const Settings& s, Options* options) {
  options->threads = s.threads;
  options->spin_microseconds = s.spin_microseconds;
  options->load = s.load;
}

// Sentences packed for TokenBatch, built before the timed passes.
struct FlatBatch {
  std::vector<int32_t> ids;
  std::vector<size_t> offsets{0};
  TokenBatch view() const { return TokenBatch{ids.data(), offsets.data(), offsets.size() - 1}; }
};

std::vector<FlatBatch> flat_batches(const std::vector<std::vector<int32_t>>& sources, size_t batch) {
  std::vector<FlatBatch> batches;
  for (size_t first = 0; first < sources.size(); first += batch) {
    FlatBatch f;
    for (size_t i = first; i < std::min(sources.size(), first + batch); ++i) {
      f.ids.insert(f.ids.end(), sources[i].begin(), sources[i].end());
      f.offsets.push_back(f.ids.size());
    }
    batches.push_back(std::move(f));
  }
  return batches;
}

// --warmup untimed and --repeat timed passes over the batches; run(batch, &tokens) does one batch
// and adds the tokens it counts.
template <typename Run>
Status timed_passes(const std::vector<FlatBatch>& batches, const Settings& s, Clock::time_point t0, Result* r,
                    const Run& run) {
  r->batch_ms.reserve(batches.size() * s.repeat);
  for (size_t pass = 0; pass < s.warmup + s.repeat; ++pass) {
    const bool timed = pass >= s.warmup;
    size_t tokens = 0, sentences = 0;
    const auto pass_start = Clock::now();
    for (const FlatBatch& f : batches) {
      const auto batch_start = Clock::now();
      HEED_RETURN_IF_ERROR(run(f.view(), &tokens));
      if (timed) r->batch_ms.push_back(ms_since(batch_start));
      if (r->first_ms == 0) r->first_ms = ms_since(t0);
      sentences += f.offsets.size() - 1;
    }
    if (timed) {
      r->pass_tokens_per_s.push_back(static_cast<double>(tokens) / (ms_since(pass_start) / 1000.0));
      r->tokens_per_pass = tokens;
      r->sentences_per_pass = sentences;
    }
  }
  return Status::success();
}

// Deterministic sources: ids from a fixed-seed generator over the non-special source tokens.
std::vector<std::vector<int32_t>> synthetic_sources(const Translator& t, const Settings& s) {
  const size_t vocab = t.source_vocabulary().size();
  uint64_t state = 0x2545f4914f6cdd1dULL;
  std::vector<std::vector<int32_t>> out(s.sentences);
  for (auto& source : out) {
    while (source.size() < s.source_len) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const int32_t id = static_cast<int32_t>((state >> 33) % vocab);
      const std::string& token = t.source_vocabulary().token(id);
      if (token.size() >= 2 && token.front() == '<' && token.back() == '>') continue;  // <s>, <unk>, ...
      source.push_back(id);
    }
  }
  return out;
}

// The lines of `path`, at least one.
Status read_lines(const std::string& path, std::vector<std::string>* out) {
  std::ifstream in(path);
  if (!in) return Status(StatusCode::kIoError, "cannot read " + path);
  for (std::string line; std::getline(in, line);) out->push_back(line);
  if (out->empty()) return invalid_argument(path + " has no lines");
  return Status::success();
}

Status bench_translation(const std::string& path, const Settings& s, const std::string& input, Clock::time_point t0,
                         Result* r) {
  TranslatorOptions options;
  set_session_options(s, &options);
  options.limits.backend = s.backend;
  options.limits.max_batch = s.batch;
  options.limits.max_beam = s.beam;
  options.limits.max_target_len = s.length;  // 0 (free length): the model's default (Translator::session_limits)
  std::vector<std::vector<std::string>> lines;  // as whitespace-separated tokens
  if (!input.empty()) {
    std::vector<std::string> text;
    HEED_RETURN_IF_ERROR(read_lines(input, &text));
    for (const std::string& line : text) lines.push_back(Translator::split_tokens(line));
    options.limits.max_source_len = 1;
    for (const auto& l : lines) options.limits.max_source_len = std::max(options.limits.max_source_len, l.size());
  } else {
    options.limits.max_source_len = s.source_len;
  }
  options.limits.max_source_len += 2;  // room for the start and end tokens some models add
  const auto open_start = Clock::now();
  std::unique_ptr<Translator> translator;
  HEED_RETURN_IF_ERROR(Translator::open(path, options, &translator));
  r->open_ms = ms_since(open_start);
  std::vector<std::vector<int32_t>> sources;
  if (lines.empty()) {
    sources = synthetic_sources(*translator, s);
  } else {
    for (const auto& l : lines) {
      sources.emplace_back();
      HEED_RETURN_IF_ERROR(translator->source_ids(l, &sources.back()));
    }
  }

  DecodeOptions decode;
  decode.beam_size = s.beam;
  decode.max_length = translator->limits().max_target_len;  // --length, or the model's default (256 at most)
  decode.min_length = s.length == 0 ? 1 : s.length;
  decode.use_vmap = s.use_vmap;
  return timed_passes(flat_batches(sources, s.batch), s, t0, r, [&](const TokenBatch& batch, size_t* tokens) {
    DecodeOutput out;
    HEED_RETURN_IF_ERROR(translator->translate(batch, decode, nullptr, &out));
    for (size_t i = 0; i < out.batch; ++i) {
      const Hypothesis& h = out.at(i, 0);
      *tokens += h.length + (h.length < decode.max_length ? 1 : 0);
    }
    return Status::success();
  });
}

// Words the synthetic embedding inputs are cut from (each sentence starts at another word).
constexpr const char* kBenchWords[] = {
    "the", "committee", "agreed", "that", "small", "devices", "should", "run", "trained", "models",
    "without", "a", "network", "connection", "while", "their", "batteries", "last", "through", "long",
    "journeys", "across", "mountains", "rivers", "and", "quiet", "villages", "where", "people", "read",
    "translate", "search", "write", "messages", "to", "friends", "family", "in", "many", "languages"};

// Sentence i: --source-len words from word 7i on, round the list; every word makes at least one
// token, so encode() (which cuts at the session's max_length, here --source-len) returns exactly
// --source-len tokens.
Status synthetic_texts_ids(const Embedder& e, const Settings& s, std::vector<std::vector<int32_t>>* out) {
  const size_t words = sizeof(kBenchWords) / sizeof(kBenchWords[0]);
  for (size_t i = 0; i < s.sentences; ++i) {
    std::string text;
    for (size_t w = 7 * i; w < 7 * i + s.source_len; ++w) text += std::string(text.empty() ? "" : " ") + kBenchWords[w % words];
    out->emplace_back();
    HEED_RETURN_IF_ERROR(e.encode(text, &out->back()));
    if (out->back().size() != s.source_len) return invalid_argument("the model's tokenizer makes too few tokens of the built-in text");
  }
  return Status::success();
}

Status bench_embedding(const std::string& path, const Settings& s, const std::string& input, Clock::time_point t0,
                       Result* r) {
  EmbedderOptions options;
  set_session_options(s, &options);
  options.max_batch = s.batch;
  if (input.empty()) options.max_length = s.source_len;  // else the model's own length, as heed embed
  std::vector<std::string> lines;
  if (!input.empty()) HEED_RETURN_IF_ERROR(read_lines(input, &lines));
  const auto open_start = Clock::now();
  std::unique_ptr<Embedder> embedder;
  HEED_RETURN_IF_ERROR(Embedder::open(path, options, &embedder));
  r->open_ms = ms_since(open_start);
  std::vector<std::vector<int32_t>> sources;
  if (lines.empty()) HEED_RETURN_IF_ERROR(synthetic_texts_ids(*embedder, s, &sources));
  for (const std::string& line : lines) {
    sources.emplace_back();
    HEED_RETURN_IF_ERROR(embedder->encode(line, &sources.back()));
  }
  std::vector<float> out(s.batch * embedder->dimension());
  const Pooling pooling = embedder->default_pooling();
  const bool normalize = embedder->default_normalize();
  return timed_passes(flat_batches(sources, s.batch), s, t0, r, [&](const TokenBatch& batch, size_t* tokens) {
    *tokens += batch.offsets[batch.size];
    return embedder->embed_ids(batch, pooling, normalize, out.data());
  });
}

Status bench_generation(const std::string& path, const Settings& s, Clock::time_point t0, Result* r) {
  const auto open_start = Clock::now();
  std::unique_ptr<Generator> generator;
  GeneratorOptions generator_options;
  set_session_options(s, &generator_options);
  generator_options.backend = s.backend;
  HEED_RETURN_IF_ERROR(Generator::open(path, generator_options, &generator));
  r->open_ms = ms_since(open_start);
  GenerateOptions options;
  options.max_new_tokens = s.length == 0 ? 256 : s.length;
  r->batch_ms.reserve(s.sentences * s.repeat);
  for (size_t pass = 0; pass < s.warmup + s.repeat; ++pass) {
    const bool timed = pass >= s.warmup;
    size_t tokens = 0;
    const auto pass_start = Clock::now();
    for (size_t i = 0; i < s.sentences; ++i) {
      Generation g;
      const auto start = Clock::now();
      HEED_RETURN_IF_ERROR(generator->generate(nullptr, 0, options, nullptr, nullptr, &g));
      if (timed) r->batch_ms.push_back(ms_since(start));
      if (r->first_ms == 0) r->first_ms = ms_since(t0);
      tokens += g.length + (g.finished_with_eos ? 1 : 0);
    }
    if (timed) {
      r->pass_tokens_per_s.push_back(static_cast<double>(tokens) / (ms_since(pass_start) / 1000.0));
      r->tokens_per_pass = tokens;
      r->sentences_per_pass = s.sentences;
    }
  }
  return Status::success();
}

// The workload options, checked (false: a usage error was printed).
bool read_settings(Args& args, Settings* out) {
  const auto batch = args.get_int("batch", 1, 1, 4096);
  const auto beam = args.get_int("beam", 1, 1, 256);
  const auto sentences = args.get_int("sentences", 16, 1, 1 << 20);
  const auto source_len = args.get_int("source-len", 32, 1, 1 << 16);
  const auto length = args.get_int("length", 32, 0, 1 << 16);
  const auto repeat = args.get_int("repeat", 5, 1, 1 << 20);
  const auto warmup = args.get_int("warmup", 1, 0, 1 << 20);
  const auto threads = args.get_int("threads", 1, 0, 256);
  const auto spin = spin_flag(args);
  const auto backend = get_backend(args);
  if (!batch || !beam || !sentences || !source_len || !length || !repeat || !warmup || !threads || !spin || !backend) return false;
  Settings& s = *out;
  s.batch = static_cast<size_t>(*batch);
  s.beam = static_cast<size_t>(*beam);
  s.sentences = static_cast<size_t>(*sentences);
  s.source_len = static_cast<size_t>(*source_len);
  s.length = static_cast<size_t>(*length);
  s.repeat = static_cast<size_t>(*repeat);
  s.warmup = static_cast<size_t>(*warmup);
  s.backend = *backend;
  s.load = load_options(args);
  // 0 as the sessions read it (one per physical core), so the report prints the real count.
  s.threads = *threads == 0 ? std::max<size_t>(1, kernels::physical_cores()) : static_cast<size_t>(*threads);
  s.spin_microseconds = *spin;
  s.use_vmap = args.has("use-vmap");
  return true;
}

// The family's workload into *r. A flag the family has no use for is a usage error: its exit code
// is returned, nullopt when the workload ran (its status in *st).
std::optional<int> run_workload(const Args& args, const std::string& family, const Settings& s, Clock::time_point t0,
                                Result* r, Status* st) {
  const std::string path = args.get("model");
  if (family == "TransformerDecoderOnly") {
    if (args.has("input") || args.has("batch") || args.has("beam") || s.use_vmap) {
      return args.usage_error("--input, --batch, --beam and --use-vmap apply to translation models; this is a language model");
    }
    *st = bench_generation(path, s, t0, r);
  } else if (family == "TransformerEncoderDecoder" || family == "RnnSeq2Seq") {
    if (s.use_vmap && family == "RnnSeq2Seq") {
      return args.usage_error("--use-vmap applies to Transformer translation models; this is an RNN");
    }
    *st = bench_translation(path, s, args.get("input"), t0, r);
  } else if (family == "TransformerEncoderOnly") {
    if (args.has("beam") || args.has("length")) {
      return args.usage_error("--beam and --length apply to translation and language models; this is an embedding model");
    }
    if (s.use_vmap) return args.usage_error("--use-vmap applies to translation models; this is an embedding model");
    *st = bench_embedding(path, s, args.get("input"), t0, r);
  } else {
    *st = invalid_argument(path + ": model family " + family + " has no decoder to benchmark");
  }
  return std::nullopt;
}

// What one run measured, and how it ran, for the report.
struct Report {
  std::string path;
  std::string family;
  double file_mib = 0;
  double median = 0, lo = 0, hi = 0;  // tokens/s over the passes
  double per_token = 0;                // sentences per token of a pass
  const char* isa = "";
  const char* unit = "";               // what one latency figure times
};

int print_json_report(const Report& p, const Settings& s, const Result& r) {
  // Two decimals are what the table shows; a path or name is escaped as JSON needs.
  const auto fixed = [](double x, double scale = 100.0) { return std::round(x * scale) / scale; };
  const OrderedJson j = {
      {"model", p.path}, {"family", p.family}, {"file_mib", fixed(p.file_mib)}, {"kernels", p.isa},
      {"batch", s.batch}, {"beam", s.beam}, {"length", s.length}, {"threads", s.threads},
      {"backend", backend_name(s.backend)}, {"use_vmap", s.use_vmap}, {"open_ms", fixed(r.open_ms)},
      {"first_result_ms", fixed(r.first_ms)}, {"tokens_per_s", fixed(p.median)}, {"tokens_per_s_min", fixed(p.lo)},
      {"tokens_per_s_max", fixed(p.hi)}, {"sentences_per_s", fixed(p.median * p.per_token, 1000.0)},
      {"latency_ms_p50", fixed(percentile(r.batch_ms, 50), 1000.0)},
      {"latency_ms_p90", fixed(percentile(r.batch_ms, 90), 1000.0)},
      {"latency_ms_p99", fixed(percentile(r.batch_ms, 99), 1000.0)}, {"tokens_per_pass", r.tokens_per_pass},
      {"sentences_per_pass", r.sentences_per_pass}, {"peak_rss_mib", fixed(peak_rss_mib())}};
  std::string text;
  if (const Status refused = json_text(j, &text); !refused) return fail(refused.message());
  std::printf("%s\n", text.c_str());
  return kExitOk;
}

int print_text_report(const Report& p, const Settings& s, const Result& r) {
  std::printf("model         %s (%.1f MiB, %s)\n", p.path.c_str(), p.file_mib, p.family.c_str());
  std::printf("kernels       %s, %zu thread%s, backend %s\n", p.isa, s.threads, s.threads == 1 ? "" : "s",
              backend_name(s.backend));
  std::printf("open          %.1f ms (map, check, create the session)\n", r.open_ms);
  std::printf("first result  %.1f ms after the command started\n", r.first_ms);
  const bool embedding = p.family == "TransformerEncoderOnly";
  std::printf("speed         %.1f %s tokens/s, %.2f %s/s (median of %zu passes of %zu tokens; min %.1f, max %.1f)\n", p.median,
              embedding ? "embedded" : "target", p.median * p.per_token, p.unit == std::string("batch") ? "sentences" : "generations",
              r.pass_tokens_per_s.size(), r.tokens_per_pass, p.lo, p.hi);
  std::printf("latency       per %s: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms (%zu timed)\n", p.unit,
              percentile(r.batch_ms, 50), percentile(r.batch_ms, 90), percentile(r.batch_ms, 99), r.batch_ms.size());
  std::printf("peak memory   %.1f MiB resident\n", peak_rss_mib());
  return kExitOk;
}

int run_bench(const std::vector<std::string>& argv) {
  const auto t0 = Clock::now();
  Args args("bench", "-m MODEL.heed [options]", kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  Settings s;
  if (!read_settings(args, &s)) return kExitUsage;
  Report p;
  p.path = args.get("model");

  // The family decides the workload; reading the index maps the file (cheap) and checks it.
  std::unique_ptr<Model> model;
  Status st = Model::open(p.path, s.load, &model);
  if (!st) return fail(st.message());
  p.family = model->family_name();
  model.reset();
  struct stat file {};
  ::stat(p.path.c_str(), &file);

  Result r;
  if (const auto usage = run_workload(args, p.family, s, t0, &r, &st)) return *usage;
  if (!st) return fail(st.message());

  p.median = percentile(r.pass_tokens_per_s, 50);
  p.lo = *std::min_element(r.pass_tokens_per_s.begin(), r.pass_tokens_per_s.end());
  p.hi = *std::max_element(r.pass_tokens_per_s.begin(), r.pass_tokens_per_s.end());
  // Every pass does the same sentences: its sentences/s is its tokens/s times this.
  p.per_token = static_cast<double>(r.sentences_per_pass) / static_cast<double>(std::max<size_t>(1, r.tokens_per_pass));
  p.file_mib = static_cast<double>(file.st_size) / (1024.0 * 1024.0);
  p.isa = kernels::isa_name(kernels::best().isa);
  p.unit = p.family == "TransformerDecoderOnly" ? "generation" : "batch";
  return args.has("json") ? print_json_report(p, s, r) : print_text_report(p, s, r);
}

}  // namespace

HEED_REGISTER_COMMAND(bench, "bench", "measure a model's speed, latency and memory on this device", 70, run_bench);

}  // namespace heed::cli
