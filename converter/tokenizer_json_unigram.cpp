#include "tokenizer_json_unigram.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "tokenizer/sentencepiece_charsmap.h"

namespace heed::convert::tokenizer_json {
namespace {

using nlohmann::json;

constexpr const char* kReplacementMark = "\xE2\x96\x81";  // U+2581, SentencePiece's word boundary

// Standard base64 (tokenizer.json's precompiled_charsmap); false on any other character.
bool base64_decode(const std::string& text, std::vector<uint8_t>* out) {
  out->clear();
  uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    if (c >= '0' && c <= '9') v = c - '0' + 52;
    if (c == '+') v = 62;
    if (c == '/') v = 63;
    if (c == '=') break;
    if (v < 0) return false;
    bits = (bits << 6) | static_cast<uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out->push_back(static_cast<uint8_t>((bits >> count) & 0xFF));
    }
  }
  return true;
}

// The score `tokenizers` holds for a number of tokenizer.json. serde_json (without its
// float_roundtrip feature) reads the digits d1..dn and exponent e of the text as the double of
// d1..dn multiplied or divided by 10^|e|, which can be one unit in the last place away from the
// nearest double that strtod (and so nlohmann-json) gives; Unigram ties between splits of equal
// pieces are decided in that last place. The file's text is the shortest form of the saved value
// (serde's ryu, Python's repr), which std::to_chars writes again from the nearest double.
double tokenizers_score(double value) {
  char text[64];
  const char* end = std::to_chars(text, text + sizeof text, value).ptr;
  uint64_t significand = 0;
  int exponent = 0;
  bool point = false;
  const char* p = text + (text[0] == '-' ? 1 : 0);
  for (; p < end && *p != 'e'; ++p) {
    if (*p == '.') {
      point = true;
      continue;
    }
    significand = significand * 10 + static_cast<uint64_t>(*p - '0');
    if (point) --exponent;
  }
  if (p < end) exponent += std::atoi(std::string(p + 1, end).c_str());
  double f = static_cast<double>(significand);
  while (f != 0.0 && exponent < -308) {  // serde's f64_from_parts: its table ends at 1e308
    f /= 1e308;
    exponent += 308;
  }
  if (exponent > 308) return value;  // beyond any score; serde refuses such a file
  const double power = std::strtod(("1e" + std::to_string(std::abs(exponent))).c_str(), nullptr);
  f = exponent >= 0 ? f * power : f / power;
  return text[0] == '-' ? -f : f;
}

Status read_model(const std::string& path, const json& model, TokenizerJson* out) {
  const json& vocab = model["vocab"];
  if (!vocab.is_array() || vocab.empty()) return invalid_file(path + ": model.vocab is not a list of [piece, score] pairs");
  out->scores.clear();
  for (const json& entry : vocab) {
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number() ||
        !std::isfinite(entry[1].get<double>())) {
      return invalid_file(path + ": model.vocab has an entry that is not [piece, score]: " + entry.dump());
    }
    if (entry[0].get<std::string>().empty()) return invalid_file(path + ": model.vocab has an empty piece");
    out->scores.push_back(tokenizers_score(entry[1].get<double>()));
  }
  const json unk = model.value("unk_id", json());
  if (!unk.is_number_integer() || unk.get<int64_t>() < 0 || unk.get<int64_t>() >= static_cast<int64_t>(vocab.size())) {
    return refuse(path, "model.unk_id", unk, "a Unigram model with an unknown token in its vocabulary");
  }
  out->unk_id = unk.get<int32_t>();
  const json fallback = model.value("byte_fallback", json(false));
  if (!fallback.is_boolean()) return invalid_file(path + ": model.byte_fallback is not true or false");
  out->unigram->byte_fallback = fallback.get<bool>();
  return Status::success();
}

Status read_replace(const std::string& path, const json& n, fb::TextStepT* step) {
  const json pattern = n.value("pattern", json());
  const json content = n.value("content", json());
  if (!content.is_string() || !pattern.is_object() || pattern.size() != 1) return refuse(path, "normalizer", n, kUnigram);
  step->kind = fb::TextStepKind::Replace;
  step->content = content.get<std::string>();
  if (pattern.contains("String") && pattern["String"].is_string() && !pattern["String"].get<std::string>().empty()) {
    step->pattern = pattern["String"].get<std::string>();
    return Status::success();
  }
  const json regex = pattern.value("Regex", json());
  for (const std::string& known : {std::string(" {2,}"), std::string("\\A +| +\\z"), "\\A" + std::string(kReplacementMark)}) {
    if (regex == known) {
      step->pattern = known;
      step->regex = true;
      return Status::success();
    }
  }
  return refuse(path, "normalizer Replace pattern", pattern, kUnigram);
}

Status read_normalizer(const std::string& path, const json& n, std::vector<std::unique_ptr<fb::TextStepT>>* steps) {
  if (n.is_null()) return Status::success();
  const std::string type = n.is_object() ? n.value("type", "") : "";
  if (type == "Sequence" && n.value("normalizers", json()).is_array()) {
    for (const json& inner : n["normalizers"]) HEED_RETURN_IF_ERROR(read_normalizer(path, inner, steps));
    return Status::success();
  }
  auto step = std::make_unique<fb::TextStepT>();
  if (type == "Precompiled") {
    const json map = n.value("precompiled_charsmap", json());
    if (map.is_null() || map == "") return Status::success();  // no table: the text is left as it is
    step->kind = fb::TextStepKind::Precompiled;
    if (!map.is_string() || !base64_decode(map.get<std::string>(), &step->charsmap)) {
      return invalid_file(path + ": normalizer Precompiled's precompiled_charsmap is not base64");
    }
    // Checked as the runtime will read it, so a broken table is refused here, not at first use.
    const Status s = heed::tokenizer::check_precompiled_charsmap(
        std::string_view(reinterpret_cast<const char*>(step->charsmap.data()), step->charsmap.size()));
    if (!s.is_ok()) return invalid_file(path + ": normalizer Precompiled's precompiled_charsmap is unusable: " + s.message());
  } else if (type == "Replace") {
    HEED_RETURN_IF_ERROR(read_replace(path, n, step.get()));
  } else if (type == "Strip" && n.value("strip_left", json()).is_boolean() && n.value("strip_right", json()).is_boolean()) {
    step->kind = fb::TextStepKind::Strip;
    step->left = n["strip_left"].get<bool>();
    step->right = n["strip_right"].get<bool>();
  } else if (type == "Prepend" && n.value("prepend", json()).is_string()) {
    step->kind = fb::TextStepKind::Prepend;
    step->content = n["prepend"].get<std::string>();
  } else {
    return refuse(path, "normalizer", n, kUnigram);
  }
  steps->push_back(std::move(step));
  return Status::success();
}

Status read_metaspace(const std::string& path, const json& m, fb::UnigramTextT* text) {
  const json replacement = m.value("replacement", json());
  if (!replacement.is_string() || replacement.get<std::string>().empty()) return refuse(path, "pre_tokenizer", m, kUnigram);
  text->metaspace = true;
  text->replacement = replacement.get<std::string>();
  const json scheme = m.value("prepend_scheme", json("always"));
  if (scheme == "always") {
    text->prepend_scheme = fb::PrependScheme::Always;
  } else if (scheme == "first") {
    text->prepend_scheme = fb::PrependScheme::First;
  } else if (scheme == "never") {
    text->prepend_scheme = fb::PrependScheme::Never;
  } else {
    return refuse(path, "pre_tokenizer Metaspace's prepend_scheme", scheme, "always, first or never");
  }
  if (m.value("add_prefix_space", json(true)) == json(false)) text->prepend_scheme = fb::PrependScheme::Never;
  const json split = m.value("split", json(true));
  if (!split.is_boolean()) return refuse(path, "pre_tokenizer Metaspace's split", split, "true or false");
  text->split = split.get<bool>();
  return Status::success();
}

// Metaspace, WhitespaceSplit, or a Sequence of WhitespaceSplit then Metaspace.
Status read_pre_tokenizer(const std::string& path, const json& pre, fb::UnigramTextT* text) {
  if (pre.is_null()) return Status::success();
  json steps = json::array({pre});
  if (pre.is_object() && pre.value("type", "") == "Sequence" && pre.value("pretokenizers", json()).is_array()) {
    steps = pre["pretokenizers"];
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const std::string type = steps[i].is_object() ? steps[i].value("type", "") : "";
    if (type == "WhitespaceSplit" && i == 0) {
      text->whitespace_split = true;
    } else if (type == "Metaspace" && i + 1 == steps.size()) {
      HEED_RETURN_IF_ERROR(read_metaspace(path, steps[i], text));
    } else {
      return refuse(path, "pre_tokenizer", pre, kUnigram);
    }
  }
  // `tokenizers` prepends under "first" when the word's first character comes from the start of the
  // text, by the offsets it keeps through every step; heed knows that only through Precompiled
  // (which may drop the first character) and without a whitespace split.
  if (text->metaspace && text->prepend_scheme == fb::PrependScheme::First) {
    bool plain = !text->whitespace_split;
    for (const auto& step : text->normalizers) plain = plain && step->kind == fb::TextStepKind::Precompiled;
    if (!plain) {
      return refuse(path, "pre_tokenizer", pre,
                    "Metaspace's prepend_scheme first only without WhitespaceSplit and after no normalizer but Precompiled");
    }
  }
  return Status::success();
}

bool flag(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

// The id `special_tokens` gives the template's special token `name`: exactly one.
Status template_id(const std::string& path, const json& post, const json& name, int32_t* id) {
  const json entry = name.is_string() ? post.value("special_tokens", json::object()).value(name.get<std::string>(), json()) : json();
  const json ids = entry.is_object() ? entry.value("ids", json()) : json();
  if (!ids.is_array() || ids.size() != 1 || !ids[0].is_number_integer() || ids[0].get<int64_t>() < 0) {
    return invalid_file(path + ": post_processor.special_tokens has no single id for " + name.dump());
  }
  *id = ids[0].get<int32_t>();
  return Status::success();
}

// The tokens the post-processor puts around one text (single): RobertaProcessing's and
// BertProcessing's cls and sep, or TemplateProcessing's special tokens before and after $A.
Status read_special_ends(const std::string& path, const json& post, TokenizerJson* out) {
  if (post.is_null()) return Status::success();
  constexpr const char* kSupported = "no post-processor, RobertaProcessing, BertProcessing, or a TemplateProcessing of "
                                     "at most one special token before the text and one after it";
  const std::string type = post.is_object() ? post.value("type", "") : "";
  if (type == "RobertaProcessing" || type == "BertProcessing") {
    const json cls = post.value("cls", json()), sep = post.value("sep", json());
    for (const json& end : {cls, sep}) {
      if (!end.is_array() || end.size() != 2 || !end[1].is_number_integer() || end[1].get<int64_t>() < 0) {
        return invalid_file(path + ": post_processor's cls and sep are not [token, id]");
      }
    }
    out->start_id = cls[1].get<int32_t>();
    out->end_id = sep[1].get<int32_t>();
    return Status::success();
  }
  const json single = post.is_object() ? post.value("single", json()) : json();
  if (type != "TemplateProcessing" || !single.is_array()) return refuse(path, "post_processor", post, kSupported);
  bool text_seen = false;
  for (const json& item : single) {
    if (!text_seen && item.is_object() && item.contains("Sequence") && item["Sequence"].value("id", "") == "A") {
      text_seen = true;
      continue;
    }
    int32_t* end = text_seen ? &out->end_id : &out->start_id;
    if (*end >= 0 || !item.is_object() || !item.contains("SpecialToken")) return refuse(path, "post_processor.single", single, kSupported);
    HEED_RETURN_IF_ERROR(template_id(path, post, item["SpecialToken"].value("id", json()), end));
  }
  if (!text_seen) return refuse(path, "post_processor.single", single, kSupported);
  return Status::success();
}

// Added tokens are found in the text as written; lstrip / rstrip ones take the whitespace beside them.
Status read_added_token_flags(const std::string& path, const json& root, TokenizerJson* out) {
  const json added = root.value("added_tokens", json());
  if (!added.is_array()) return Status::success();
  for (const json& a : added) {
    if (!a.is_object() || !a.contains("id") || !a["id"].is_number_integer()) continue;  // read_tokens refuses it
    const std::string what = "added token " + a.value("content", json()).dump() + "'s ";
    if (flag(a, "single_word")) return refuse(path, what + "single_word", true, "added tokens that are not single_word");
    if (flag(a, "normalized")) return refuse(path, what + "normalized", true, "added tokens matched as written (normalized false)");
    if (flag(a, "lstrip")) out->unigram->lstrip_ids.push_back(a["id"].get<int32_t>());
    if (flag(a, "rstrip")) out->unigram->rstrip_ids.push_back(a["id"].get<int32_t>());
  }
  return Status::success();
}

}  // namespace

Status read_unigram(const std::string& path, const json& root, TokenizerJson* out) {
  out->kind = TokenizerJson::Kind::kUnigram;
  out->unigram = std::make_unique<fb::UnigramTextT>();
  try {
    HEED_RETURN_IF_ERROR(read_model(path, root["model"], out));
    HEED_RETURN_IF_ERROR(read_normalizer(path, root.value("normalizer", json()), &out->unigram->normalizers));
    HEED_RETURN_IF_ERROR(read_pre_tokenizer(path, root.value("pre_tokenizer", json()), out->unigram.get()));
    HEED_RETURN_IF_ERROR(read_special_ends(path, root.value("post_processor", json()), out));
    return read_added_token_flags(path, root, out);
  } catch (const json::exception& e) {  // a field of an unexpected type
    return invalid_file(path + ": " + e.what());
  }
}

}  // namespace heed::convert::tokenizer_json

namespace heed::convert {

void unigram_tokenizer_section(TokenizerJson t, const std::string& pad_token, fb::TokenizerT* out) {
  out->kind = fb::TokenizerKind::Unigram;
  out->unk_id = t.unk_id;
  out->bos_id = t.start_id;
  out->eos_id = t.end_id;
  for (size_t i = 0; i < t.tokens.size(); ++i) {
    if (t.tokens[i] == pad_token) {
      out->pad_id = static_cast<int32_t>(i);
      break;
    }
  }
  out->special_ids = std::move(t.added_ids);
  out->target_vocabulary = std::make_unique<fb::VocabularyT>();
  out->target_vocabulary->tokens = std::move(t.tokens);
  out->unigram = std::move(t.unigram);
  out->unigram->scores = std::move(t.scores);
}

}  // namespace heed::convert
