#include "chat/published.h"

#include <openssl/evp.h>

#include <string_view>

namespace heed::convert::chat {
namespace {

struct PublishedTemplate {
  const char* models;         // who publishes it (ChatTemplate::published_as)
  const char* shape_sha256;   // shape_digest of its shape
  fb::ChatFormat format;
  bool date_from_clock;       // Llama31: the template calls strftime_now("%d %b %Y") when defined
};

// The digests come from the templates as llama.cpp's models/templates/ keeps them (copied from the
// models' tokenizer_config.json); tests/python/test_chat_templates.py checks each one against the
// real template and its Jinja rendering.
constexpr PublishedTemplate kPublished[] = {
    {"Llama 3.1 Instruct, Llama 3.3 Instruct", "cc470e5bd30d60c0bb51c4a19499cfd37a77943c70cde4a7b1e5b71185d60223",
     fb::ChatFormat::Llama31, false},
    {"Llama 3.2 Instruct", "f4c0a1b79688e2aef202eeefa2175b553e6e604a4ac3c68fee83badbef58e1d8", fb::ChatFormat::Llama31,
     true},
    {"Qwen2.5 Instruct", "bddea0f79c244afced6bdd5c4ddf22723a38b893f04cff93878ae33730b16ebe", fb::ChatFormat::Qwen25,
     false},
};

// The text from right after the first `prefix` in `shape` up to `end`, inside one single-quoted
// literal (its escapes resolved); false when there is none or the literal closes before `end`.
bool literal_after(std::string_view shape, std::string_view prefix, std::string_view end, std::string* value) {
  const size_t at = shape.find(prefix);
  if (at == std::string_view::npos) return false;
  value->clear();
  for (size_t i = at + prefix.size(); i < shape.size(); ++i) {
    if (shape.substr(i, end.size()) == end) return true;
    if (shape[i] == '\'') return false;  // the literal closed before `end`
    if (shape[i] == '\\' && i + 1 < shape.size()) ++i;
    *value += shape[i];
  }
  return false;
}

// The parameters of a recognized template, read from its shape: Llama31's fallback date (the
// literal its date_string is set to), Qwen25's default system message (the system turn written
// when the first message is not a system message: the last literal system turn).
bool read_parameters(const std::string& shape, fb::ChatTemplateT* out) {
  if (out->format == fb::ChatFormat::Llama31) {
    out->leading_bos = shape.rfind("{{bos_token}}", 0) == 0;
    return literal_after(shape, "{%set date_string='", "'", &out->date);
  }
  const std::string_view turn = "{{'<|im_start|>system\n";
  const size_t last = shape.rfind(turn);
  if (last == std::string::npos) return false;
  return literal_after(std::string_view(shape).substr(last), turn, "<|im_end|>\n'}}", &out->default_system);
}

}  // namespace

std::string shape_digest(const std::string& shape) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(shape.data(), shape.size(), md, &size, EVP_sha256(), nullptr) != 1) return "";
  static const char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[md[i] >> 4];
    hex += kHex[md[i] & 15];
  }
  return hex;
}

bool recognize_published(const std::string& shape, fb::ChatTemplateT* out) {
  const std::string digest = shape_digest(shape);
  for (const PublishedTemplate& p : kPublished) {
    if (digest != p.shape_sha256) continue;
    fb::ChatTemplateT t;
    t.format = p.format;
    t.date_from_clock = p.date_from_clock;
    t.published_as = p.models;
    if (!read_parameters(shape, &t)) return false;
    *out = std::move(t);
    return true;
  }
  return false;
}

}  // namespace heed::convert::chat
