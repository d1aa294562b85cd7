// `heed serve`: an HTTP server over one or more models, with LibreTranslate's API for translation
// models and OpenAI's for embeddings and completions (tools/heed/serve/, docs/serve.md).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "serve/api_keys.h"
#include "serve/model_set.h"
#include "serve/request_limits.h"
#include "serve/server.h"

namespace heed::cli {
namespace {

constexpr const char* kDescription =
    "Serves the models over HTTP/1.1 until SIGTERM or SIGINT (then it stops accepting, finishes the\n"
    "requests it has and exits 0). Endpoints (docs/serve.md has examples and every error):\n"
    "  translation models (encoder-decoder, RNN): LibreTranslate's POST /translate (a JSON body, or\n"
    "    the query string and a url-encoded or multipart form), GET /languages (POST /detect answers\n"
    "    501); the languages come from the file (Argos packages and Marian folders record them) or\n"
    "    from --lang SRC-TGT, given once per translation model in -m order, one model per pair;\n"
    "  encoder-only models: OpenAI's POST /v1/embeddings; decoder-only models: POST /v1/completions\n"
    "    (stream: true sends server-sent events; max_tokens above --max-len is clamped to it; OpenAI\n"
    "    parameters heed lacks, such as echo or logprobs, are a 400 unless at their defaults);\n"
    "    GET /v1/models lists every model by its id, the file name without .heed, GET /v1/models/ID\n"
    "    gives one;\n"
    "  GET /health.\n"
    "Translations are those `heed translate` prints with its defaults (beam 2, paragraphs split into\n"
    "sentences); with --use-vmap, those of `heed translate --use-vmap` (every translation model must\n"
    "have been converted with a vocabulary map, heed convert --vmap).\n"
    "\n"
    "Each model gets --max-concurrent sessions, created at start with their memory planned then; a\n"
    "request borrows one, waiting in line (first come, first served) when all are busy. More than\n"
    "--max-queue waiting requests: 429; no session within --timeout-ms: 503. A generation stops at\n"
    "--timeout-ms too.\n"
    "\n"
    "Limits on every request, whatever way it arrives (docs/security.md lists each with its test):\n"
    "the whole request, headers and body, within --read-timeout-ms of its first byte (408); a header\n"
    "section within --max-header-bytes and --max-headers (431); a body within --max-request-bytes,\n"
    "Content-Length or chunked (413); one unambiguous framing (two different Content-Length values,\n"
    "or Transfer-Encoding with Content-Length: 400). An idle connection is closed after\n"
    "--keep-alive-ms; past --max-connections the oldest idle connection makes room for a new one.\n"
    "\n"
    "Browsers: bound to a loopback or link-local address, the server answers only requests whose\n"
    "Host is that address, localhost or an --allowed-host name (403 otherwise: DNS rebinding).\n"
    "LibreTranslate's routes send Access-Control-Allow-Origin (--cors-origin, default *) and answer\n"
    "preflight OPTIONS; /v1 only with --v1-cors-origin, and its POSTs must be JSON (415 otherwise).\n"
    "\n"
    "Keys: with --api-key or --api-keys, /translate needs the key as its api_key field (403\n"
    "otherwise) and the /v1 endpoints as 'Authorization: Bearer KEY' (401 otherwise).\n"
    "Every request writes one JSON line to stderr: time, endpoint, status, tokens, milliseconds and\n"
    "model; the request's text only with --log-text. The server listens on 127.0.0.1 unless --host\n"
    "says otherwise; --port 0 picks a free port (the 'listening' line on stderr names it).";

std::vector<OptionSpec> specs() {
  std::vector<OptionSpec> all = {
      model_option("a model to serve (repeatable; at least one)"),
      {"lang", 0, true, "SRC-TGT", "languages of a translation model without them in the file (repeatable)"},
      {"host", 0, true, "ADDRESS", "address to listen on (default 127.0.0.1)"},
      {"port", 0, true, "N", "port to listen on (default 5000; 0: a free one)"},
      {"api-key", 0, true, "KEY", "the key clients must send (repeatable)"},
      {"api-keys", 0, true, "FILE", "a file of accepted keys, one a line ('#' starts a comment line)"},
      threads_option(),
      spin_option(),
      {"max-concurrent", 0, true, "N", "sessions per model: requests computed at once (default 1)"},
      {"max-queue", 0, true, "N", "requests waiting per model before 429 (default 32)"},
      {"max-request-bytes", 0, true, "N", "largest request body (default 1048576; larger: 413)"},
      {"max-texts", 0, true, "N", "texts per request: q items, embedding inputs (default 64)"},
      {"max-text-bytes", 0, true, "N", "bytes per text, prompt or input (default 20000)"},
      {"max-len", 0, true, "N", "tokens generated per request, per sentence for translations (default 256)"},
      {"timeout-ms", 0, true, "N", "waiting for a session plus generating, per request (default 30000)"},
      {"read-timeout-ms", 0, true, "N", "receiving one whole request, headers and body (default 10000)"},
      {"keep-alive-ms", 0, true, "N", "closing a connection idle this long between requests (default 5000)"},
      {"max-header-bytes", 0, true, "N", "largest header section, request line included (default 16384; larger: 431)"},
      {"max-headers", 0, true, "N", "most header fields in a request (default 64; more: 431)"},
      {"max-connections", 0, true, "N", "connections held at once; the oldest idle ones make room (default 128)"},
      {"allowed-host", 0, true, "NAME", "a Host name accepted besides the address and localhost (repeatable)"},
      {"cors-origin", 0, true, "ORIGIN", "Access-Control-Allow-Origin on LibreTranslate's routes (default *; none: off)"},
      {"v1-cors-origin", 0, true, "ORIGIN", "Access-Control-Allow-Origin on /v1 (default: none)"},
      {"log-text", 0, false, "", "log each request's text too"},
      {"no-web-page", 0, false, "", "no translation page at / (the APIs only)"},
      {"use-vmap", 0, false, "", "translate over each request's vocabulary shortlist (models converted with --vmap)"},
      backend_option(),
      no_mmap_option(),
  };
  for (OptionSpec& spec : serve::request_limit_specs()) all.push_back(std::move(spec));
  return all;
}

// The command line as options; returns the exit code to leave with, or nullopt to go on.
std::optional<int> parse(Args& args, const std::vector<std::string>& argv, serve::ServeOptions* o) {
  if (const auto exit_code = parse_model_command(args, argv)) return exit_code;
  const auto port = args.get_int("port", 5000, 0, 65535);
  const auto threads = args.get_int("threads", 1, 0, 256);
  const auto spin = spin_flag(args);
  const auto sessions = args.get_int("max-concurrent", 1, 1, 64);
  const auto queue = args.get_int("max-queue", 32, 0, 4096);
  const auto body = args.get_int("max-request-bytes", 1 << 20, 1, int64_t{1} << 31);
  const auto texts = args.get_int("max-texts", 64, 1, 1 << 16);
  const auto text_bytes = args.get_int("max-text-bytes", 20000, 1, int64_t{1} << 31);
  const auto tokens = args.get_int("max-len", 256, 1, 1 << 16);
  const auto timeout = args.get_int("timeout-ms", 30000, 1, int64_t{1} << 40);
  const auto read_timeout = args.get_int("read-timeout-ms", 10000, 100, int64_t{1} << 40);
  const auto keep_alive = args.get_int("keep-alive-ms", 5000, 100, int64_t{1} << 40);
  const auto header_bytes = args.get_int("max-header-bytes", 16384, 1024, 1 << 20);
  const auto header_fields = args.get_int("max-headers", 64, 8, 1 << 12);
  const auto connections = args.get_int("max-connections", 128, 1, 4096);
  const auto backend = get_backend(args);
  if (!port || !threads || !spin || !sessions || !queue || !body || !texts || !text_bytes || !tokens || !timeout ||
      !read_timeout || !keep_alive || !header_bytes || !header_fields || !connections || !backend ||
      !serve::parse_request_limits(args, o)) {
    return kExitUsage;
  }
  o->model_paths = args.get_all("model");
  o->languages = args.get_all("lang");
  o->host = args.get("host", "127.0.0.1");
  o->port = static_cast<int>(*port);
  o->api_keys = args.get_all("api-key");
  o->threads = static_cast<size_t>(*threads);
  o->spin_microseconds = *spin;
  o->sessions = static_cast<size_t>(*sessions);
  o->max_queue = static_cast<size_t>(*queue);
  o->max_request_bytes = static_cast<size_t>(*body);
  o->max_texts = static_cast<size_t>(*texts);
  o->max_text_bytes = static_cast<size_t>(*text_bytes);
  o->max_tokens = static_cast<size_t>(*tokens);
  o->timeout_ms = *timeout;
  o->read_timeout_ms = *read_timeout;
  o->keep_alive_ms = *keep_alive;
  o->max_header_bytes = static_cast<size_t>(*header_bytes);
  o->max_header_fields = static_cast<size_t>(*header_fields);
  o->max_connections = static_cast<size_t>(*connections);
  o->allowed_hosts = args.get_all("allowed-host");
  o->cors_origin = args.get("cors-origin", "*");
  if (o->cors_origin == "none") o->cors_origin.clear();
  o->v1_cors_origin = args.get("v1-cors-origin", "");
  if (o->v1_cors_origin == "none") o->v1_cors_origin.clear();
  o->log_text = args.has("log-text");
  o->web_page = !args.has("no-web-page");
  o->use_vmap = args.has("use-vmap");
  o->backend = *backend;
  o->load = load_options(args);
  return std::nullopt;
}

int fail(const std::string& message) {
  std::fprintf(stderr, "heed serve: %s\n", message.c_str());
  return kExitError;
}

// A blank key would be matched by a request that sends none: refused, not served to everyone.
std::optional<std::string> blank_key(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) {
    if (key.find_first_not_of(" \t\r\n") == std::string::npos) {
      return std::string("--api-key: an empty or blank key would accept clients that send no key; give a real key");
    }
  }
  return std::nullopt;
}

int run_serve(const std::vector<std::string>& argv) {
  Args args("serve", "-m MODEL.heed [-m MODEL2.heed ...] [--host 127.0.0.1] [--port 5000] [options]", kDescription,
            specs());
  serve::ServeOptions options;
  if (const auto exit_code = parse(args, argv, &options)) return *exit_code;
  if (args.has("api-keys")) {
    const Status st = serve::ApiKeys::read_file(args.get("api-keys"), &options.api_keys);
    if (!st) return fail("--api-keys: " + st.message());
  }
  if (const auto error = blank_key(options.api_keys)) return fail(*error);
  std::unique_ptr<serve::ModelSet> models;
  const Status st = serve::ModelSet::load(options, &models);
  if (!st) return fail(st.message());
  return serve::run_server(options, *models, serve::ApiKeys(options.api_keys));
}

}  // namespace

HEED_REGISTER_COMMAND(serve, "serve", "serve models over HTTP (LibreTranslate and OpenAI APIs)", 80, run_serve);

}  // namespace heed::cli
