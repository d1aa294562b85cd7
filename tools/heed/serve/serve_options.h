// `heed serve`'s settings, from its command line (cmd_serve.cpp; `heed serve --help` explains each).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/model.h"
#include "heed/step_model.h"

namespace heed::cli::serve {

struct ServeOptions {
  std::vector<std::string> model_paths;
  std::vector<std::string> languages;  // --lang SRC-TGT, one per translation model in -m order
  std::string host = "127.0.0.1";
  int port = 5000;
  std::vector<std::string> api_keys;  // empty: no key needed
  size_t threads = 1;                 // threads of each session
  uint32_t spin_microseconds = 100;   // their idle spin before sleeping
  size_t sessions = 1;                // --max-concurrent: sessions per model
  size_t max_queue = 32;              // requests waiting for a session, per model
  size_t max_request_bytes = size_t{1} << 20;
  size_t max_texts = 64;              // `q` items (or embedding inputs) per request
  size_t max_text_bytes = 20000;      // bytes per `q` item / prompt / input
  size_t max_tokens = 256;            // generated tokens per request (translation: per sentence)
  size_t max_alternatives = 3;        // LibreTranslate's `alternatives`
  // Work one request may ask for (request_limits.h; over one: 413 naming it).
  size_t max_request_sentences = 1000;  // /translate: sentences after splitting, all texts together
  size_t max_request_chars = 100000;    // characters (code points) of all texts / inputs / the prompt
  size_t max_request_tokens = 20000;    // source, input or prompt tokens, all texts together
  int64_t timeout_ms = 30000;         // queue wait and generation of one request
  int64_t read_timeout_ms = 10000;    // reading one request, headers and body; writing each part of an answer
  int64_t keep_alive_ms = 5000;       // an idle connection's wait for its next request
  size_t max_header_bytes = 16384;    // request line and header fields
  size_t max_header_fields = 64;
  size_t max_connections = 128;       // connections held at once (the oldest idle ones make room)
  std::vector<std::string> allowed_hosts;  // Host names accepted besides the address and localhost
  std::string cors_origin = "*";      // Access-Control-Allow-Origin on LibreTranslate's routes ("": none)
  std::string v1_cors_origin;         // the same on /v1 ("": none)
  bool log_text = false;
  bool web_page = true;               // the translation page at / (--no-web-page: off)
  bool use_vmap = false;              // translations over each batch's vocabulary shortlist
  LoadOptions load;
  Backend backend = Backend::kAuto;
};

}  // namespace heed::cli::serve
