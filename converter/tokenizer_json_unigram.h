// The Unigram part of the tokenizer.json reader (tokenizer_json.*): the model's pieces and scores,
// the normalizers (Precompiled, Replace with the patterns SentencePiece exports use, Strip,
// Prepend), the pre-tokenizer (Metaspace, after WhitespaceSplit or alone), the post-processor
// (TemplateProcessing or RobertaProcessing: the tokens before and after the text) and the added
// tokens' lstrip / rstrip. Everything else is refused naming the component.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "heed/status.h"
#include "tokenizer_json.h"

namespace heed::convert::tokenizer_json {

constexpr const char* kUnigram =
    "a Unigram model after the normalizers Precompiled, Replace (text, or the regex \" {2,}\", \"\\\\A +| +\\\\z\" or "
    "\"\\\\A\\u2581\"), Strip and Prepend, and the pre-tokenizer Metaspace (alone or after WhitespaceSplit)";

// "<path>: <what> is <value>; heed reads <supported>": the refusal of a component heed does not run.
Status refuse(const std::string& path, const std::string& what, const nlohmann::json& value, const std::string& supported);
// A field that must hold `want` (or be absent or null when `absent_ok`).
Status expect(const std::string& path, const nlohmann::json& object, const char* key, const nlohmann::json& want,
              bool absent_ok, const std::string& supported);

// Fills out->kind, scores (the model's pieces), unk_id, start_id, end_id and unigram.
Status read_unigram(const std::string& path, const nlohmann::json& root, TokenizerJson* out);

}  // namespace heed::convert::tokenizer_json
