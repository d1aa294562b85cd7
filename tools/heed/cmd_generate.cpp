// `heed generate`: continues a prompt with a decoder-only language model, streaming the text.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "decoding_flags.h"
#include "heed/generator.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Continues a prompt with a decoder-only language model and prints the generated text to stdout\n"
    "as each token is produced, then a newline. The prompt itself is not printed (--echo prints it\n"
    "first). Generation starts from the model's start token (BOS), followed by the prompt (models\n"
    "trained without a start token, such as OpenNMT-py language models, start from the prompt's\n"
    "first token), and stops at the end token or after N tokens (clipped to the model's context).\n"
    "\n"
    "Prompt: --prompt TEXT is tokenized with the model's tokenizer (llama2.c models: byte-fallback\n"
    "BPE; Hugging Face Llama: its SentencePiece model; Hugging Face GPT-2: byte-level BPE;\n"
    "CTranslate2 / OpenNMT models: space-separated vocabulary tokens, unknown ones mapped to\n"
    "<unk>). --prompt-ids takes token ids instead (comma or space separated). Neither: generate\n"
    "from the start token alone.\n"
    "\n"
    "Decoding: greedy (the most likely token) when --temperature is 0, the default; otherwise\n"
    "sampling at that temperature among the --top-k most likely tokens (0: all) whose cumulative\n"
    "probability reaches --top-p, with heed's own seeded PRNG (--seed): the same seed gives the same\n"
    "text on every platform.\n"
    "\n"
    "Exit status: 0 done, 1 error (one line on stderr), 2 wrong usage.";

std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> specs = {
      model_option(),
      {"prompt", 'p', true, "TEXT", "prompt text"},
      {"prompt-ids", 0, true, "IDS", "prompt token ids, e.g. 1,2,3 (instead of --prompt)"},
      {"max-len", 0, true, "N", "tokens to generate, end token included (default 256)", {"tokens"}, true},
      {"temperature", 0, true, "T", "0: greedy (default); > 0: sample at this temperature"},
      {"top-k", 'k', true, "K", "sample among the K most likely tokens (default 0: all)"},
      {"top-p", 0, true, "P", "sample from the smallest set reaching probability P (default 1)"},
      {"seed", 's', true, "S", "random seed for sampling (default 0)"},
      {"stop", 0, true, "TEXT", "stop when the generated text contains TEXT, which is not printed (repeatable)"},
      {"max-context", 0, true, "N", "positions per generation (default: the model's limit, or 1024)"},
      threads_option(),
      backend_option(),
      {"echo", 0, false, "", "print the prompt before the continuation"},
      {"ids", 0, false, "", "print the generated token ids (space separated) instead of text"},
      no_mmap_option(),
  };
  for (OptionSpec& o : decoding_control_options()) specs.push_back(std::move(o));
  return specs;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "heed generate: %s\n", message.c_str());
  return kExitError;
}

// Writes generated text; control bytes other than whitespace (raw byte tokens: ESC, BEL, ...) and
// DEL are dropped so a terminal never receives an escape sequence from a model.
void print_piece(std::string_view piece) {
  for (const char ch : piece) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && !std::isspace(c)) || c == 0x7f) continue;
    std::fputc(ch, stdout);
  }
  std::fflush(stdout);
}

struct StreamState {
  bool ids = false;
  bool first = true;
  StopStrings stop{{}};
  std::string ready;  // text the stop strings released
};

bool on_token(void* user, int32_t id, std::string_view text) {
  StreamState& s = *static_cast<StreamState*>(user);
  if (s.ids) {
    std::printf(s.first ? "%d" : " %d", id);
    std::fflush(stdout);
    s.first = false;
    return true;
  }
  const bool stopped = s.stop.feed(text, &s.ready);
  print_piece(s.ready);
  s.ready.clear();
  return !stopped;
}

int run_generate(const std::vector<std::string>& argv) {
  Args args("generate", "-m MODEL.heed [--prompt TEXT | --prompt-ids IDS] [--max-len N] [options]", kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  if (args.has("prompt") && args.has("prompt-ids")) return args.usage_error("give --prompt or --prompt-ids, not both");
  const auto tokens = args.get_int("max-len", 256, 1, 1 << 20);
  const auto top_k = args.get_int("top-k", 0, 0, 1 << 30);
  const auto seed = args.get_int("seed", 0, 0, INT64_MAX);
  const auto context = args.get_int("max-context", 0, 0, 1 << 20);
  const auto threads = args.get_int("threads", 1, 0, 256);
  const auto temperature = args.get_double("temperature", 0.0);
  const auto top_p = args.get_double("top-p", 1.0);
  const auto backend = get_backend(args);
  ControlFlags control_flags;
  if (!tokens || !top_k || !seed || !context || !threads || !temperature || !top_p || !backend ||
      !get_control_flags(args, &control_flags)) {
    return kExitUsage;
  }
  if (!(*temperature >= 0) || !std::isfinite(*temperature)) return args.usage_error("--temperature must be >= 0");
  if (!(*top_p > 0 && *top_p <= 1)) return args.usage_error("--top-p must be in (0, 1]");
  std::vector<int32_t> prompt_ids;
  if (args.has("prompt-ids") && !parse_token_ids(args.get("prompt-ids"), &prompt_ids)) {
    return args.usage_error("--prompt-ids takes non-negative integers separated by commas or spaces");
  }

  GeneratorOptions gopts;
  gopts.max_context = static_cast<size_t>(*context);
  // The session is planned for this run: the start token, the prompt (a tokenizer makes at most
  // one piece per byte, plus a word-boundary piece) and the new tokens.
  const size_t prompt_bound = args.has("prompt-ids") ? prompt_ids.size() : args.get("prompt").size() + 1;
  gopts.positions_needed = 1 + prompt_bound + static_cast<size_t>(*tokens);
  gopts.threads = static_cast<size_t>(*threads);
  gopts.backend = *backend;
  gopts.load = load_options(args);
  std::unique_ptr<Generator> generator;
  Status st = Generator::open(args.get("model"), gopts, &generator);
  if (!st) return fail(st.message());
  if (args.has("prompt")) {
    st = generator->encode(args.get("prompt"), &prompt_ids);
    if (!st) return fail(st.message());
  }

  GenerateOptions options;
  options.max_new_tokens = static_cast<size_t>(*tokens);
  options.temperature = static_cast<float>(*temperature);
  options.top_k = static_cast<size_t>(*top_k);
  options.top_p = static_cast<float>(*top_p);
  options.seed = static_cast<uint64_t>(*seed);
  ControlIds control_ids;
  st = control_ids.map(control_flags, [&](const std::string& t) { return generator->token_id(t); });
  if (!st) return fail(st.message());
  control_ids.bind(control_flags, &options.controls);

  StreamState state;
  state.ids = args.has("ids");
  state.stop = StopStrings(args.get_all("stop"));
  if (args.has("echo") && !state.ids) {
    int32_t previous = generator->bos_id();
    for (int32_t id : prompt_ids) {
      if (id >= 0 && static_cast<size_t>(id) < generator->vocab_size()) print_piece(generator->piece(previous, id));
      previous = id;
    }
    // Whitespace tokens: the continuation's first token comes without its separating space.
    if (!prompt_ids.empty() && generator->tokenizer_kind() == TokenizerKind::Whitespace) print_piece(" ");
  }
  Generation result;
  st = generator->generate(prompt_ids.data(), prompt_ids.size(), options, &on_token, &state, &result);
  state.stop.flush(&state.ready);
  print_piece(state.ready);
  if (!st) {
    std::fputc('\n', stdout);
    return fail(st.message());
  }
  std::fputc('\n', stdout);
  std::fflush(stdout);
  return kExitOk;
}

}  // namespace

HEED_REGISTER_COMMAND(generate, "generate", "continue a prompt with a decoder-only language model", 50, run_generate);

}  // namespace heed::cli
