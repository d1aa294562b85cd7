#include "vocab_map.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <vector>

#include "source_files.h"

namespace heed::convert {

namespace {

// Token -> id of one vocabulary; a token listed twice keeps its first id, as CTranslate2's
// Vocabulary does.
class TokenIds {
 public:
  explicit TokenIds(const std::vector<std::string>& tokens) {
    ids_.reserve(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) ids_.emplace(tokens[i], static_cast<int32_t>(i));
  }
  int32_t find(std::string_view token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<std::string_view, int32_t> ids_;  // views into the model's vocabulary
};

// Calls `each` with every piece of `text` between single `separator`s.
template <typename Each>
void split(std::string_view text, char separator, const Each& each) {
  for (size_t start = 0;;) {
    const size_t end = text.find(separator, start);
    each(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return;
    start = end + 1;
  }
}

// The lines read so far: candidates by n-gram (std::map orders the keys as the schema does, a
// proper prefix first) and the always-candidates.
struct Entries {
  std::map<std::vector<int32_t>, std::vector<int32_t>> by_key;
  std::vector<int32_t> always;
};

void sort_unique(std::vector<int32_t>* ids) {
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
}

// One line (without its end of line) into `entries`; false when it has no tab.
bool parse_line(std::string_view line, const TokenIds& source, const TokenIds& target, Entries* entries,
                VocabMapSummary* summary) {
  const size_t tab = line.find('\t');
  if (tab == std::string_view::npos) return false;
  const std::string_view ngram = line.substr(0, tab);
  std::vector<int32_t> key;
  bool known = true;
  if (!ngram.empty()) {
    split(ngram, ' ', [&](std::string_view token) {
      const int32_t id = source.find(token);
      known = known && id >= 0;
      key.push_back(id);
    });
  }
  if (!known) {
    ++summary->dropped_ngrams;
    return true;
  }
  std::vector<int32_t>& candidates = key.empty() ? entries->always : entries->by_key[key];
  split(line.substr(tab + 1), ' ', [&](std::string_view token) {
    if (token.empty()) return;  // a trailing or doubled space separates no token
    const int32_t id = target.find(token);
    if (id < 0) {
      ++summary->dropped_targets;
    } else {
      candidates.push_back(id);
    }
  });
  return true;
}

// The table from the merged entries. The text cap of source_files.h (256 MiB, two bytes at least
// per id) keeps every offset far below 2^32.
void build_table(Entries* entries, fb::VocabMapT* out, VocabMapSummary* summary) {
  *out = fb::VocabMapT();
  out->key_offsets.push_back(0);
  out->target_offsets.push_back(0);
  for (auto& [key, candidates] : entries->by_key) {
    sort_unique(&candidates);
    if (candidates.empty()) continue;
    out->key_ids.insert(out->key_ids.end(), key.begin(), key.end());
    out->target_ids.insert(out->target_ids.end(), candidates.begin(), candidates.end());
    out->key_offsets.push_back(static_cast<uint32_t>(out->key_ids.size()));
    out->target_offsets.push_back(static_cast<uint32_t>(out->target_ids.size()));
    out->max_ngram = std::max(out->max_ngram, static_cast<uint32_t>(key.size()));
  }
  out->max_ngram = std::max(out->max_ngram, 1u);  // the schema's floor, for a map of `always` alone
  sort_unique(&entries->always);
  out->always = std::move(entries->always);
  summary->keys = out->key_offsets.size() - 1;
  summary->max_ngram = out->max_ngram;
  summary->candidates = out->target_ids.size();
  summary->always = out->always.size();
}

const std::vector<std::string>* source_tokens(const fb::TokenizerT& tokenizer) {
  if (tokenizer.source_vocabulary) return &tokenizer.source_vocabulary->tokens;
  if (tokenizer.shared_vocabulary && tokenizer.target_vocabulary) return &tokenizer.target_vocabulary->tokens;
  return nullptr;
}

}  // namespace

Status parse_vocab_map(std::string_view text, const std::string& name, const fb::TokenizerT& tokenizer,
                       fb::VocabMapT* out, VocabMapSummary* summary) {
  *summary = VocabMapSummary();
  const std::vector<std::string>* source_vocabulary = source_tokens(tokenizer);
  if (!source_vocabulary || !tokenizer.target_vocabulary) {
    return invalid_argument(name + ": the model has no source and target vocabularies to map the tokens to");
  }
  const TokenIds source(*source_vocabulary), target(tokenizer.target_vocabulary->tokens);
  Entries entries;
  size_t number = 0;
  for (size_t start = 0; start < text.size();) {
    const size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (!parse_line(line, source, target, &entries, summary)) {
      return invalid_file(name + ":" + std::to_string(number) +
                          ": no tab between the source n-gram and its target tokens");
    }
  }
  build_table(&entries, out, summary);
  return Status::success();
}

Status add_vocab_map(const std::string& path, NeutralModel* model, VocabMapSummary* summary) {
  if (model->config.type != fb::ModelConfig::TransformerEncoderDecoder) {
    return invalid_argument(std::string("--vmap: a vocabulary shortlist needs a translation model (a Transformer "
                                        "encoder-decoder), not ") +
                            fb::EnumNameModelConfig(model->config.type));
  }
  std::string text;
  HEED_RETURN_IF_ERROR(read_text(path, &text));
  fb::VocabMapT map;
  HEED_RETURN_IF_ERROR(parse_vocab_map(text, path, model->tokenizer, &map, summary));
  model->vocab_map = std::move(map);
  return Status::success();
}

}  // namespace heed::convert
