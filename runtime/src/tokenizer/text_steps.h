// The text steps of a tokenizer.json around a Unigram model, as the `tokenizers` library runs them
// on each stretch of text between added tokens: its normalizers in order (Precompiled, Replace,
// Strip, Prepend), then its pre-tokenizer (WhitespaceSplit, then Metaspace: spaces become the
// replacement character, the prepend scheme adds one at the start, and with `split` each
// replacement character starts a new word). The converter refuses every other component, so what
// a file names here is all there is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "heed/status.h"
#include "heed_generated.h"
#include "tokenizer/precompiled_charsmap.h"

namespace heed::tokenizer {

// The byte length of the Unicode White_Space character at text[at] (Rust's char::is_whitespace,
// the regex \s), 0 when there is none.
size_t whitespace_length(std::string_view text, size_t at);
// The byte length of the White_Space character that ends text[0, end), 0 when there is none.
size_t whitespace_length_before(std::string_view text, size_t end);

class TextSteps {
 public:
  // Checks what the file says (one replacement character, known patterns, a sound charsmap).
  static Status create(const fb::UnigramText& spec, TextSteps* out);

  void normalize(std::string_view text, std::string* out) const;
  // Whether the normalized stretch starts with what its first character became (tokenizers'
  // offsets say so; the converter allows prepend scheme "first" only after Precompiled alone,
  // which keeps the first character or drops it).
  bool keeps_first_character(std::string_view stretch) const;
  // The words of a normalized stretch. `at_text_start`: the stretch begins the text with its first
  // character (Metaspace's prepend scheme "first" adds the replacement there only).
  void pre_tokenize(std::string_view normalized, bool at_text_start, std::vector<std::string>* words) const;

  bool metaspace() const { return metaspace_; }
  const std::string& replacement() const { return replacement_; }
  fb::PrependScheme prepend_scheme() const { return prepend_scheme_; }

 private:
  enum class Pattern { kLiteral, kSpaceRuns, kEdgeSpaces, kLeadingReplacement };
  struct Step {
    fb::TextStepKind kind = fb::TextStepKind::Precompiled;
    PrecompiledCharsmap charsmap;
    Pattern pattern = Pattern::kLiteral;
    std::string literal, content;
    bool left = false, right = false;
  };
  static Status make_step(const fb::TextStep& spec, Step* out);
  static void apply(const Step& step, std::string* text);
  void metaspace_words(std::string word, bool prepend, std::vector<std::string>* words) const;

  std::vector<Step> steps_;
  bool whitespace_split_ = false, metaspace_ = false, split_ = true;
  std::string replacement_;
  fb::PrependScheme prepend_scheme_ = fb::PrependScheme::Always;
};

}  // namespace heed::tokenizer
