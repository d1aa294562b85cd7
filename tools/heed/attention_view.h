// Attention you can see: `heed translate --attention FILE.svg` and `--attention-json FILE` turn
// the alignment matrices of the best hypotheses (TranslationHypothesis::attention) into an SVG
// heatmap document and JSON lines. Pure text building: the caller writes the files.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace heed::cli {

// One sentence's alignment: rows = target tokens (EOS included), columns = source tokens.
struct AttentionRecord {
  size_t line = 0;                  // 0-based input line
  std::vector<std::string> source;  // column labels
  std::vector<std::string> target;  // row labels
  size_t layers = 1;
  size_t heads = 1;                 // panels = layers * heads, panel = layer * heads + head
  std::vector<float> weights;       // [target.size(), layers * heads, source.size()]

  float at(size_t row, size_t panel, size_t column) const {
    return weights[(row * layers * heads + panel) * source.size() + column];
  }
};

// One JSON object (no newline): {"line", "source", "target", "layers", "heads",
// "panels": [{"layer", "head", "weights": [[...] per target token]}]}, every layer and head.
std::string attention_json_line(const AttentionRecord& record);

// The whole SVG document: one block per record, one heatmap panel per head of the last layer and
// one for their mean (a single panel for models with one, such as the RNN family), a colour legend.
std::string attention_svg(const std::vector<AttentionRecord>& records);

// & < > " ' as XML entities; control characters other than tab/newline, C1 controls and bytes
// that are not UTF-8 become U+FFFD, so the document is well-formed XML for any token bytes.
std::string xml_escape(const std::string& text);

}  // namespace heed::cli
