// CTranslate2's vocabulary mapping file (`heed convert --vmap FILE`) -> the file's VocabMap table
// (schema/heed.fbs): source n-grams and the target tokens each makes candidates, as ids of the
// model's own vocabularies.
//
// Each line is `src_1 src_2 ... src_N<TAB>tgt_1 tgt_2 ... tgt_K` (tokens separated by single
// spaces); a line whose n-gram is empty gives the tokens that are always candidates. Empty lines
// are skipped, a line ending in CRLF is read as if it ended in LF, a line without a tab is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert {

struct VocabMapSummary {
  size_t keys = 0;             // n-grams written (duplicates merged)
  uint32_t max_ngram = 0;      // tokens of the longest
  size_t candidates = 0;       // target ids over every key
  size_t always = 0;           // target ids of the empty n-gram
  size_t dropped_ngrams = 0;   // lines whose n-gram holds a token not in the source vocabulary
  size_t dropped_targets = 0;  // target tokens not in the target vocabulary (on the lines kept)
};

// Parses `text` (named `name` in messages) into `out` with the ids of `tokenizer`'s vocabularies.
// Duplicate n-grams merge their candidates; each key's candidates and `always` are sorted and
// unique; keys are sorted by their ids, a prefix first. An n-gram left without candidates is not
// written (its only candidate in CTranslate2 would be <unk>, which the runtime always allows).
Status parse_vocab_map(std::string_view text, const std::string& name, const fb::TokenizerT& tokenizer,
                       fb::VocabMapT* out, VocabMapSummary* summary);

// Reads the mapping file at `path` (through source_files.h) into model->vocab_map. The model must
// be a Transformer encoder-decoder: the only family that translates with a shortlist.
Status add_vocab_map(const std::string& path, NeutralModel* model, VocabMapSummary* summary);

}  // namespace heed::convert
