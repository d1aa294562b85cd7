// Builds a DescriptionSection one typed value at a time (describe(), runtime/src/describe/).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "heed/model_description.h"
#include "loader/model_index.h"

namespace heed::describing {

struct SectionBuilder {
  DescriptionSection section;
  explicit SectionBuilder(std::string title) { section.title = std::move(title); }
  void text(const std::string& key, const std::string& value) {
    section.entries.push_back({key, value, DescriptionEntry::Kind::Text});
  }
  void number(const char* key, uint64_t value) {
    DescriptionEntry e{key, std::to_string(value), DescriptionEntry::Kind::Unsigned};
    e.unsigned_value = value;
    section.entries.push_back(std::move(e));
  }
  void integer(const char* key, int64_t value) {
    DescriptionEntry e{key, std::to_string(value), DescriptionEntry::Kind::Signed};
    e.signed_value = value;
    section.entries.push_back(std::move(e));
  }
  void flag(const char* key, bool value) {
    DescriptionEntry e{key, value ? "true" : "false", DescriptionEntry::Kind::Flag};
    e.flag = value;
    section.entries.push_back(std::move(e));
  }
  void real(const char* key, float value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
    DescriptionEntry e{key, text, DescriptionEntry::Kind::Real};
    e.real = value;
    section.entries.push_back(std::move(e));
  }
};

inline std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// The family section and one section per transformer stack (describe_config.cpp).
void add_config(const fb::Model& index, std::vector<DescriptionSection>* sections);

}  // namespace heed::describing
