#include "tokenizer_json.h"

#include <nlohmann/json.hpp>

#include "json_fields.h"
#include "tokenizer_json_unigram.h"

namespace heed::convert {
namespace tokenizer_json {

using nlohmann::json;

// "<path>: <what> is <value>, ...": the refusal of a component heed does not run.
Status refuse(const std::string& path, const std::string& what, const json& value, const std::string& supported) {
  return unsupported_model(path + ": " + what + " is " + value.dump() + "; heed reads " + supported);
}

// A field that must hold `want` (or be absent or null when `absent_ok`).
Status expect(const std::string& path, const json& object, const char* key, const json& want, bool absent_ok,
              const std::string& supported) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (absent_ok) return Status::success();
    return invalid_file(path + ": missing '" + std::string(key) + "'");
  }
  if (*it != want) return refuse(path, std::string(key), *it, supported);
  return Status::success();
}

}  // namespace tokenizer_json

namespace {

using nlohmann::json;
using tokenizer_json::expect;
using tokenizer_json::refuse;

// The model's vocabulary and the added tokens, by id, filling exactly 0..vocab_size-1.
Status read_tokens(const std::string& path, const json& root, uint32_t vocab_size, std::vector<std::string>* out,
                   std::vector<int32_t>* added_ids) {
  std::vector<std::string> tokens(vocab_size);
  std::vector<bool> seen(vocab_size, false);
  const auto place = [&](const std::string& token, const json& id) -> Status {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= static_cast<int64_t>(vocab_size)) {
      return invalid_file(path + ": token '" + token + "' has id " + id.dump() + ", outside 0.." +
                          std::to_string(vocab_size - 1) + " (config.json's vocab_size is " + std::to_string(vocab_size) + ")");
    }
    const size_t i = static_cast<size_t>(id.get<int64_t>());
    if (seen[i] && tokens[i] != token) return invalid_file(path + ": id " + std::to_string(i) + " is given to two tokens");
    seen[i] = true;
    tokens[i] = token;
    return Status::success();
  };
  const json& vocab = root["model"]["vocab"];
  if (vocab.is_array()) {  // Unigram: [piece, score] pairs, by id (checked by read_unigram)
    for (size_t i = 0; i < vocab.size(); ++i) HEED_RETURN_IF_ERROR(place(vocab[i][0].get<std::string>(), json(i)));
  } else if (!vocab.is_object()) {
    return invalid_file(path + ": model.vocab is not an object of token -> id");
  }
  for (auto it = vocab.begin(); vocab.is_object() && it != vocab.end(); ++it) HEED_RETURN_IF_ERROR(place(it.key(), it.value()));
  const auto added = root.find("added_tokens");
  if (added != root.end() && added->is_array()) {
    for (const json& a : *added) {
      if (!a.is_object() || !a.contains("content") || !a["content"].is_string() || !a.contains("id")) {
        return invalid_file(path + ": an added token without 'content' and 'id'");
      }
      HEED_RETURN_IF_ERROR(place(a["content"].get<std::string>(), a["id"]));
      added_ids->push_back(a["id"].get<int32_t>());
    }
  }
  for (size_t i = 0; i < vocab_size; ++i) {
    if (!seen[i]) return invalid_file(path + ": no token has id " + std::to_string(i) + " (config.json's vocab_size is " +
                                      std::to_string(vocab_size) + ")");
  }
  *out = std::move(tokens);
  return Status::success();
}

// model.merges: "a b" strings (tokenizers before 0.20) or ["a", "b"] pairs (after).
Status read_merges(const std::string& path, const json& model, std::vector<std::string>* out) {
  const auto merges = model.find("merges");
  if (merges == model.end() || !merges->is_array()) return invalid_file(path + ": model.merges is not a list");
  out->clear();
  for (const json& m : *merges) {
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 == s.size() || s.find(' ', space + 1) != std::string::npos) {
        return invalid_file(path + ": merge '" + s + "' is not two symbols separated by one space");
      }
      out->push_back(s);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      out->push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
    } else {
      return invalid_file(path + ": a merge is neither \"a b\" nor [\"a\", \"b\"]");
    }
  }
  return Status::success();
}

// The post-processor of a BPE tokenizer: none, ByteLevel (offsets only), or a TemplateProcessing
// that puts one special token before the text (Llama 3's <|begin_of_text|>): its id is the start
// token. Anything else would add tokens heed does not add.
Status read_bpe_post_processor(const std::string& path, const json& root, TokenizerJson* out) {
  const json post = root.value("post_processor", json());
  if (post.is_null() || (post.is_object() && post.value("type", "") == "ByteLevel")) return Status::success();
  constexpr const char* kSupported = "no post-processor, ByteLevel, or a TemplateProcessing of one special token before the text";
  if (!post.is_object() || post.value("type", "") != "TemplateProcessing") return refuse(path, "post_processor", post, kSupported);
  const json single = post.value("single", json());
  if (!single.is_array() || single.size() != 2 || !single[0].contains("SpecialToken") || !single[1].contains("Sequence")) {
    return refuse(path, "post_processor.single", single, kSupported);
  }
  const json name = single[0]["SpecialToken"].value("id", json());
  const json ids = post.value("special_tokens", json()).value(name.is_string() ? name.get<std::string>() : "", json()).value("ids", json());
  if (!ids.is_array() || ids.size() != 1 || !ids[0].is_number_integer() || ids[0].get<int64_t>() < 0) {
    return invalid_file(path + ": post_processor.special_tokens has no single id for " + name.dump());
  }
  out->start_id = ids[0].get<int32_t>();
  return Status::success();
}

constexpr const char* kByteLevel =
    "GPT-2's byte-level BPE (pre_tokenizer ByteLevel with add_prefix_space false and use_regex true, alone or after "
    "Digits with individual_digits true; or Llama 3's or Qwen2's Split regex, Isolated, before ByteLevel with "
    "use_regex false; no normalizer, or NFC with Qwen2's)";

// The Split regexes heed implements (tokenizer/byte_level_bpe.cpp, llama3_word), as the tokenizer.json
// files of Llama 3 and Qwen2 spell them.
constexpr const char* kLlama3Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr const char* kQwen2Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// Sequence [Split (Llama 3's or Qwen2's regex, Isolated, not inverted), ByteLevel (use_regex false)].
Status read_split_pre_tokenizer(const std::string& path, const json& pre, TokenizerJson* out) {
  const json steps = pre.value("pretokenizers", json());
  const json split = steps.is_array() && !steps.empty() ? steps[0] : json();
  const json regex = split.is_object() ? split.value("pattern", json()).value("Regex", json()) : json();
  if (regex == kLlama3Split) {
    out->split_pattern = fb::SplitPattern::Llama3;
  } else if (regex == kQwen2Split) {
    out->split_pattern = fb::SplitPattern::Qwen2;
  } else {
    return refuse(path, "the Split pre-tokenizer's pattern", regex, kByteLevel);
  }
  HEED_RETURN_IF_ERROR(expect(path, split, "behavior", "Isolated", false, kByteLevel));
  HEED_RETURN_IF_ERROR(expect(path, split, "invert", false, true, kByteLevel));
  if (steps.size() != 2 || !steps[1].is_object() || steps[1].value("type", "") != "ByteLevel") {
    return refuse(path, "pre_tokenizer", pre, kByteLevel);
  }
  HEED_RETURN_IF_ERROR(expect(path, steps[1], "add_prefix_space", false, false, kByteLevel));
  return expect(path, steps[1], "use_regex", false, false, kByteLevel);
}

// ByteLevel alone, Sequence [Digits (individual_digits), ByteLevel] as SmolLM's tokenizers have it,
// or a Split regex before ByteLevel (Llama 3, Qwen2).
Status read_byte_level_pre_tokenizer(const std::string& path, const json& pre, TokenizerJson* out) {
  json byte_level = pre;
  const json first = pre.is_object() ? pre.value("pretokenizers", json()) : json();
  if (first.is_array() && !first.empty() && first[0].is_object() && first[0].value("type", "") == "Split") {
    return read_split_pre_tokenizer(path, pre, out);
  }
  if (pre.is_object() && pre.value("type", "") == "Sequence") {
    const json steps = pre.value("pretokenizers", json());
    if (!steps.is_array() || steps.size() != 2 || !steps[0].is_object() || steps[0].value("type", "") != "Digits" ||
        steps[0].value("individual_digits", false) != true) {
      return refuse(path, "pre_tokenizer", pre, kByteLevel);
    }
    out->split_digits = true;
    byte_level = steps[1];
  }
  if (!byte_level.is_object() || byte_level.value("type", "") != "ByteLevel") return refuse(path, "pre_tokenizer", pre, kByteLevel);
  HEED_RETURN_IF_ERROR(expect(path, byte_level, "add_prefix_space", false, false, kByteLevel));
  return expect(path, byte_level, "use_regex", true, true, kByteLevel);
}

Status read_byte_level_bpe(const std::string& path, const json& root, TokenizerJson* out) {
  const json& model = root["model"];
  for (const char* key : {"dropout", "unk_token"}) HEED_RETURN_IF_ERROR(expect(path, model, key, json(), true, kByteLevel));
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (model.contains(key) && !model[key].is_null() && model[key] != "") return refuse(path, std::string("model.") + key, model[key], kByteLevel);
  }
  for (const char* key : {"fuse_unk", "byte_fallback", "ignore_merges"}) {
    HEED_RETURN_IF_ERROR(expect(path, model, key, false, true, kByteLevel));
  }
  HEED_RETURN_IF_ERROR(read_byte_level_pre_tokenizer(path, root.value("pre_tokenizer", json()), out));
  const json normalizer = root.value("normalizer", json());
  const bool qwen2_nfc = out->split_pattern == fb::SplitPattern::Qwen2 && normalizer.is_object() &&
                         normalizer.value("type", "") == "NFC";
  if (!normalizer.is_null() && !qwen2_nfc) return refuse(path, "normalizer", normalizer, kByteLevel);
  out->kind = TokenizerJson::Kind::kByteLevelBpe;
  HEED_RETURN_IF_ERROR(read_bpe_post_processor(path, root, out));
  return read_merges(path, model, &out->merges);
}

constexpr const char* kWordPiece = "BERT's WordPiece (BertNormalizer with clean_text and handle_chinese_chars, "
                                   "BertPreTokenizer, continuing_subword_prefix ##, max_input_chars_per_word 100)";

Status read_wordpiece(const std::string& path, const json& root, TokenizerJson* out) {
  const json& model = root["model"];
  HEED_RETURN_IF_ERROR(expect(path, model, "continuing_subword_prefix", "##", true, kWordPiece));
  HEED_RETURN_IF_ERROR(expect(path, model, "max_input_chars_per_word", 100, true, kWordPiece));
  const json& norm = root.contains("normalizer") ? root["normalizer"] : json();
  if (!norm.is_object() || norm.value("type", "") != "BertNormalizer") return refuse(path, "normalizer", norm, kWordPiece);
  for (const char* key : {"clean_text", "handle_chinese_chars"}) HEED_RETURN_IF_ERROR(expect(path, norm, key, true, true, kWordPiece));
  const json& pre = root.contains("pre_tokenizer") ? root["pre_tokenizer"] : json();
  if (!pre.is_object() || pre.value("type", "") != "BertPreTokenizer") return refuse(path, "pre_tokenizer", pre, kWordPiece);
  out->kind = TokenizerJson::Kind::kWordPiece;
  out->lowercase = norm.value("lowercase", true);
  if (norm.contains("strip_accents") && norm["strip_accents"].is_boolean()) out->strip_accents = norm["strip_accents"].get<bool>();
  return Status::success();
}

}  // namespace

Status read_tokenizer_json(const std::string& path, uint32_t vocab_size, TokenizerJson* out) {
  json root;
  HEED_RETURN_IF_ERROR(read_json(path, &root));
  if (!root.contains("model") || !root["model"].is_object()) return invalid_file(path + ": no 'model' object");
  json type = root["model"].value("type", json());
  // Files written before the model carried its type: a Unigram model is a list of pairs and an unk_id.
  if (type.is_null() && root["model"].contains("unk_id") && root["model"].value("vocab", json()).is_array()) type = "Unigram";
  TokenizerJson t;
  if (type == "BPE") {
    HEED_RETURN_IF_ERROR(read_byte_level_bpe(path, root, &t));
  } else if (type == "WordPiece") {
    HEED_RETURN_IF_ERROR(read_wordpiece(path, root, &t));
  } else if (type == "Unigram") {
    HEED_RETURN_IF_ERROR(tokenizer_json::read_unigram(path, root, &t));
  } else {
    return refuse(path, "model.type", type, std::string(kByteLevel) + ", " + kWordPiece + " or " + tokenizer_json::kUnigram);
  }
  HEED_RETURN_IF_ERROR(read_tokens(path, root, vocab_size, &t.tokens, &t.added_ids));
  for (const int32_t id : {t.start_id, t.end_id, t.unk_id}) {
    if (id >= static_cast<int32_t>(vocab_size)) return invalid_file(path + ": the post-processor's or the model's special token is outside the vocabulary");
  }
  if (t.kind == TokenizerJson::Kind::kUnigram) t.scores.resize(vocab_size, 0.0);
  *out = std::move(t);
  return Status::success();
}

}  // namespace heed::convert
