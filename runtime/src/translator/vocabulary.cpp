#include <string>
#include <utility>

#include "translator/vocabulary_index.h"

namespace heed {

Vocabulary::Vocabulary(std::vector<std::string> tokens) : tokens_(std::move(tokens)) {
  ids_.reserve(tokens_.size());
  // The first occurrence wins when a vocabulary lists a token twice.
  for (size_t i = 0; i < tokens_.size(); ++i) ids_.emplace(tokens_[i], static_cast<int32_t>(i));
}

Vocabulary vocabulary_from_index(const fb::Vocabulary* vocabulary) {
  std::vector<std::string> tokens;
  if (vocabulary && vocabulary->tokens()) {
    tokens.reserve(vocabulary->tokens()->size());
    for (const auto* t : *vocabulary->tokens()) tokens.emplace_back(t ? t->str() : std::string());
  }
  return Vocabulary(std::move(tokens));
}

int32_t Vocabulary::id(std::string_view token) const {
  auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

}  // namespace heed
