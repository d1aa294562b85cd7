#include "ct2/vocabulary.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "source_files.h"

namespace heed::convert::ct2 {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "" when none of `stem` + .json / .txt exists.
std::string find_vocabulary(const std::string& dir, const std::string& stem) {
  for (const char* ext : {".json", ".txt"}) {
    std::string path = dir + "/" + stem + ext;
    if (is_file(path)) return path;
  }
  return "";
}

void add_unk(std::vector<std::string>* tokens, const std::string& unk) {
  if (std::find(tokens->begin(), tokens->end(), unk) == tokens->end()) tokens->push_back(unk);
}

}  // namespace

Status read_config(const std::string& dir, Config* out) {
  *out = Config();
  const std::string path = dir + "/config.json";
  if (!is_file(path)) return Status::success();
  std::string text;
  HEED_RETURN_IF_ERROR(read_text(path, &text));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return invalid_file(path + " is not a JSON object");
  out->from_file = true;

  auto get_string = [&](const char* key, std::string* value) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::success();
    if (!it->is_string()) return invalid_file(path + ": '" + key + "' is not a string");
    *value = it->get<std::string>();
    return Status::success();
  };
  auto get_bool = [&](const char* key, bool* value) -> Status {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return Status::success();
    if (!it->is_boolean()) return invalid_file(path + ": '" + key + "' is not true or false");
    *value = it->get<bool>();
    return Status::success();
  };
  HEED_RETURN_IF_ERROR(get_string("unk_token", &out->unk_token));
  HEED_RETURN_IF_ERROR(get_string("bos_token", &out->bos_token));
  HEED_RETURN_IF_ERROR(get_string("eos_token", &out->eos_token));
  HEED_RETURN_IF_ERROR(get_bool("add_source_bos", &out->add_source_bos));
  HEED_RETURN_IF_ERROR(get_bool("add_source_eos", &out->add_source_eos));
  auto start = j.find("decoder_start_token");
  if (start != j.end()) {
    if (start->is_null()) {
      out->decoder_start_token.reset();
    } else if (start->is_string()) {
      out->decoder_start_token = start->get<std::string>();
    } else {
      return invalid_file(path + ": 'decoder_start_token' is not a string");
    }
  }
  auto eps = j.find("layer_norm_epsilon");
  if (eps != j.end() && !eps->is_null()) {
    if (!eps->is_number()) return invalid_file(path + ": 'layer_norm_epsilon' is not a number");
    const double e = eps->get<double>();
    if (!(e > 0 && e < 1)) return invalid_file(path + ": 'layer_norm_epsilon' " + std::to_string(e) + " is not in (0, 1)");
    out->layer_norm_epsilon = static_cast<float>(e);
  }
  return Status::success();
}

Status read_vocabulary_file(const std::string& path, std::vector<std::string>* tokens) {
  tokens->clear();
  std::string text;
  HEED_RETURN_IF_ERROR(read_text(path, &text));
  if (ends_with(path, ".json")) {
    nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_array()) return invalid_file(path + " is not a JSON array of tokens");
    tokens->reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_string()) return invalid_file(path + ": entry " + std::to_string(i) + " is not a string");
      tokens->push_back(j[i].get<std::string>());
    }
  } else {
    // One token per line, exactly as written (a final newline ends the last line, no empty token).
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      tokens->push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  if (tokens->empty()) return invalid_file(path + " has no tokens");
  return Status::success();
}

Status read_vocabularies(const std::string& dir, bool sequence_to_sequence, const std::string& unk_token,
                         Vocabularies* out) {
  *out = Vocabularies();
  const std::string shared = find_vocabulary(dir, "shared_vocabulary");
  if (sequence_to_sequence) {
    if (!shared.empty()) {
      HEED_RETURN_IF_ERROR(read_vocabulary_file(shared, &out->target));
      out->source = out->target;
      out->shared = true;
      out->source_file = out->target_file = shared;
    } else {
      out->source_file = find_vocabulary(dir, "source_vocabulary");
      out->target_file = find_vocabulary(dir, "target_vocabulary");
      if (out->source_file.empty() || out->target_file.empty()) {
        return invalid_file(dir + " has no " + std::string(out->source_file.empty() ? "source" : "target") +
                            " vocabulary (expected shared_vocabulary.json/.txt, or source_vocabulary.json/.txt "
                            "and target_vocabulary.json/.txt)");
      }
      HEED_RETURN_IF_ERROR(read_vocabulary_file(out->source_file, &out->source));
      HEED_RETURN_IF_ERROR(read_vocabulary_file(out->target_file, &out->target));
      add_unk(&out->source, unk_token);
    }
  } else {
    out->target_file = find_vocabulary(dir, "vocabulary");
    if (out->target_file.empty()) out->target_file = shared;
    if (out->target_file.empty()) out->target_file = find_vocabulary(dir, "target_vocabulary");
    if (out->target_file.empty()) {
      return invalid_file(dir + " has no vocabulary (expected vocabulary.json or vocabulary.txt)");
    }
    HEED_RETURN_IF_ERROR(read_vocabulary_file(out->target_file, &out->target));
  }
  add_unk(&out->target, unk_token);
  if (out->shared) out->source = out->target;
  return Status::success();
}

}  // namespace heed::convert::ct2
