// `heed generate`: continues a prompt with a decoder-only language model, streaming the text.
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include "args.h"
#include "chat_messages.h"
#include "command.h"
#include "decoding_flags.h"
#include "generate_lines.h"
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
    "<unk>). --prompt-ids takes token ids instead (comma or space separated). --prompt \"\" generates\n"
    "from the start token alone.\n"
    "\n"
    "Neither: prompts are read from stdin, one per line, and generated --batch at a time (batches\n"
    "give more tokens per second); each prompt's continuation is one output line, in input order\n"
    "(a newline the model generates is written as \\x0a). A line that cannot be generated gets an\n"
    "empty output line and a message naming it; the exit status is then 1. Greedy outputs are the\n"
    "same as one prompt at a time; sampled ones depend on the batch (one random stream per batch).\n"
    "\n"
    "Chat (--chat): for a model whose file records a chat format (heed convert recognizes a\n"
    "tokenizer_config.json chat_template as ChatML, Llama 2, Llama 3 or Zephyr, or as the templates\n"
    "Llama 3.1/3.2/3.3 Instruct and Qwen2.5 Instruct publish), each prompt is a chat:\n"
    "a JSON array of messages on one line, e.g. [{\"role\":\"system\",\"content\":\"Be brief.\"},\n"
    "{\"role\":\"user\",\"content\":\"Hi!\"}] (--prompt takes one such array). heed renders it as the\n"
    "template does with add_generation_prompt, then tokenizes the text with the special tokens\n"
    "recognized and continues it: the continuation is the assistant's answer. --chat-text prints each\n"
    "stdin chat's rendered text as a JSON string instead of generating. A model without a chat format,\n"
    "or with a template heed cannot render, is refused with a message naming it.\n"
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
      {"batch", 0, true, "N", "prompts from stdin generated together (default 8)"},
      {"max-context", 0, true, "N", "positions per generation (default: the model's limit, or 1024)"},
      threads_option(),
      spin_option(),
      backend_option(),
      {"echo", 0, false, "", "print the prompt before the continuation (with --ids: the prompt's ids)"},
      {"chat", 0, false, "", "prompts are chats: JSON arrays of {\"role\", \"content\"} messages"},
      {"chat-text", 0, false, "", "with --chat: print each stdin chat's rendered prompt text (a JSON string)"},
      {"ids", 0, false, "", "print the generated token ids (space separated) instead of text"},
      no_mmap_option(),
      no_progress_option(),
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

// The command line's decoding settings; false after a usage error.
struct Settings {
  GeneratorOptions generator;
  GenerateOptions generate;
  ControlFlags controls;
  std::vector<int32_t> prompt_ids;
  bool from_stdin = false;
  size_t batch = 8;
};

bool parse_settings(const Args& args, Settings* s) {
  const auto tokens = args.get_int("max-len", 256, 1, 1 << 20);
  const auto top_k = args.get_int("top-k", 0, 0, 1 << 30);
  const auto seed = args.get_int("seed", 0, 0, INT64_MAX);
  const auto context = args.get_int("max-context", 0, 0, 1 << 20);
  const auto threads = args.get_int("threads", 1, 0, 256);
  const auto spin = spin_flag(args);
  const auto batch = args.get_int("batch", 8, 1, 1024);
  const auto temperature = args.get_double("temperature", 0.0);
  const auto top_p = args.get_double("top-p", 1.0);
  const auto backend = get_backend(args);
  if (!tokens || !top_k || !seed || !context || !threads || !spin || !batch || !temperature || !top_p || !backend ||
      !get_control_flags(args, &s->controls)) {
    return false;
  }
  // Their ranges are the runtime's decoding options' (heed/decode_option_keys.h).
  DecodeOptions keyed;
  if (!set_decode_flag(args, &keyed, "temperature", "sampling_temperature", *temperature) ||
      !set_decode_flag(args, &keyed, "top-p", "sampling_topp", *top_p) ||
      !set_decode_flag(args, &keyed, "top-k", "sampling_topk", *top_k) || !set_decode_flag(args, &keyed, "seed", "seed", *seed)) {
    return false;
  }
  if (args.has("prompt-ids") && !parse_token_ids(args.get("prompt-ids"), &s->prompt_ids)) {
    return args.usage_error("--prompt-ids takes non-negative integers separated by commas or spaces"), false;
  }
  s->from_stdin = !args.has("prompt") && !args.has("prompt-ids");
  s->batch = static_cast<size_t>(*batch);
  GeneratorOptions& g = s->generator;
  g.max_context = static_cast<size_t>(*context);
  // One prompt: the session is planned for this run (the start token, the prompt, a tokenizer
  // making at most one piece per byte plus a word-boundary piece, and the new tokens). Prompts from
  // stdin are not known in advance: the model's context.
  const size_t prompt_bound = args.has("prompt-ids") ? s->prompt_ids.size() : args.get("prompt").size() + 1;
  // A chat's text is longer than its JSON only by the template's own text (a default system
  // message): the model's context too.
  const bool unknown_length = s->from_stdin || args.has("chat");
  g.positions_needed = unknown_length ? 0 : 1 + prompt_bound + static_cast<size_t>(*tokens);
  g.max_batch = s->from_stdin ? s->batch : 1;
  g.threads = static_cast<size_t>(*threads);
  g.spin_microseconds = *spin;
  g.backend = *backend;
  g.load = load_options(args);
  GenerateOptions& o = s->generate;
  o.max_new_tokens = static_cast<size_t>(*tokens);
  o.temperature = keyed.sampling_temperature;  // 0: greedy, the Generator's convention
  o.top_k = keyed.sampling_top_k;
  o.top_p = keyed.sampling_top_p;
  o.seed = keyed.seed;
  return true;
}

// One prompt (--prompt or --prompt-ids), streamed token by token.
int generate_one(Generator& generator, const GenerateOptions& options, const std::vector<int32_t>& prompt_ids,
                 const Args& args) {
  StreamState state;
  state.ids = args.has("ids");
  state.stop = StopStrings(args.get_all("stop"));
  if (args.has("echo") && state.ids) {  // the prompt's ids, then the continuation's
    for (int32_t id : prompt_ids) {
      std::printf(state.first ? "%d" : " %d", id);
      state.first = false;
    }
  } else if (args.has("echo")) {
    int32_t previous = generator.bos_id();
    for (int32_t id : prompt_ids) {
      if (id >= 0 && static_cast<size_t>(id) < generator.vocab_size()) print_piece(generator.piece(previous, id));
      previous = id;
    }
    // Whitespace tokens: the continuation's first token comes without its separating space.
    if (!prompt_ids.empty() && generator.tokenizer_kind() == TokenizerKind::Whitespace) print_piece(" ");
  }
  Generation result;
  const Status st = generator.generate(prompt_ids.data(), prompt_ids.size(), options, &on_token, &state, &result);
  state.stop.flush(&state.ready);
  print_piece(state.ready);
  std::fputc('\n', stdout);
  std::fflush(stdout);
  return st ? kExitOk : fail(st.message());
}

int run_generate(const std::vector<std::string>& argv) {
  Args args("generate", "-m MODEL.heed [--prompt TEXT | --prompt-ids IDS | < prompts] [--max-len N] [options]",
            kDescription, specs());
  if (const auto exit_code = parse_model_command(args, argv)) return *exit_code;
  if (args.has("prompt") && args.has("prompt-ids")) return args.usage_error("give --prompt or --prompt-ids, not both");
  if (args.has("chat") && args.has("prompt-ids")) return args.usage_error("--chat takes chats, not --prompt-ids");
  Settings s;
  if (!parse_settings(args, &s)) return kExitUsage;
  std::unique_ptr<Generator> generator;
  Status st = Generator::open(args.get("model"), s.generator, &generator);
  if (!st) return fail(st.message());
  ControlIds control_ids;
  st = control_ids.map(s.controls, [&](const std::string& t) { return generator->token_id(t); });
  if (!st) return fail(st.message());
  control_ids.bind(s.controls, &s.generate.controls);
  if (args.has("chat-text")) {
    if (!args.has("chat") || !s.from_stdin) return args.usage_error("--chat-text needs --chat and chats on stdin");
    return print_chat_texts(*generator, STDIN_FILENO);
  }
  if (s.from_stdin) {
    GenerateLinesSettings lines;
    lines.batch = s.batch;
    lines.ids = args.has("ids");
    lines.echo = args.has("echo");
    lines.chat = args.has("chat");
    lines.stop = args.get_all("stop");
    lines.progress = !args.has("no-progress");
    return generate_lines(*generator, s.generate, lines, STDIN_FILENO);
  }
  if (args.has("prompt")) {
    st = encode_prompt(*generator, args.get("prompt"), args.has("chat"), &s.prompt_ids);
    if (!st) return fail(st.message());
  }
  return generate_one(*generator, s.generate, s.prompt_ids, args);
}

}  // namespace

HEED_REGISTER_COMMAND(generate, "generate", "continue a prompt with a decoder-only language model", 50, run_generate);

}  // namespace heed::cli
