#include "attention_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "json_output.h"
#include "text_escape.h"

namespace heed::cli {
namespace {

// Geometry of the heatmaps, in SVG user units (pixels).
constexpr double kCell = 18;        // one (target, source) cell
constexpr double kCharWidth = 7.5;  // rough width of a label character at font-size 12
constexpr double kGap = 24;         // between panels and blocks
constexpr size_t kPanelsPerRow = 3; // panels wrap after this many

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string px(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// Code points, for label widths (UTF-8 continuation bytes do not count).
size_t display_length(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// White (0) to dark blue (1), linear in RGB: readable in print and for most colour-blind readers.
std::string colour(double v) {
  if (!(v >= 0)) v = 0;  // NaN too
  if (v > 1) v = 1;
  const auto mix = [v](int from, int to) { return static_cast<int>(std::lround(from + (to - from) * v)); };
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", mix(255, 8), mix(255, 48), mix(255, 107));
  return buf;
}

// One heatmap: `value(row, column)`, titled, drawn with its top-left corner at (x, y).
struct Panel {
  std::string title;
  std::vector<float> values;  // [rows, columns]
};

double label_width(const std::vector<std::string>& labels) {
  size_t n = 0;
  for (const auto& l : labels) n = std::max(n, display_length(l));
  return static_cast<double>(n) * kCharWidth + 6;
}

// The panels the SVG shows for a record: the single panel, or the last layer's heads and their mean.
std::vector<Panel> shown_panels(const AttentionRecord& r) {
  const size_t rows = r.target.size(), cols = r.source.size(), panels = r.layers * r.heads;
  std::vector<Panel> out;
  const auto extract = [&](size_t panel) {
    std::vector<float> v(rows * cols);
    for (size_t t = 0; t < rows; ++t) {
      for (size_t s = 0; s < cols; ++s) v[t * cols + s] = r.at(t, panel, s);
    }
    return v;
  };
  if (panels == 1) {
    out.push_back({"attention", extract(0)});
    return out;
  }
  const size_t last = r.layers - 1;
  std::vector<float> mean(rows * cols, 0.0f);
  for (size_t h = 0; h < r.heads; ++h) {
    Panel p{"layer " + std::to_string(last + 1) + " head " + std::to_string(h + 1), extract(last * r.heads + h)};
    for (size_t i = 0; i < mean.size(); ++i) mean[i] += p.values[i] / static_cast<float>(r.heads);
    out.push_back(std::move(p));
  }
  out.push_back({"layer " + std::to_string(last + 1) + " mean of heads", std::move(mean)});
  return out;
}

}  // namespace

std::string xml_escape(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // A document that is not UTF-8 is not XML: bytes that are not UTF-8 (and C1 controls)
      // become U+FFFD, valid sequences are kept.
      const size_t n = printable_utf8_length(text, i);
      out += n > 0 ? text.substr(i, n) : "\xEF\xBF\xBD";
      i += n > 0 ? n : 1;
      continue;
    }
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even as references.
        if (c < 0x20 && c != '\t' && c != '\n') {
          out += "\xEF\xBF\xBD";
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out;
}

// Labels are tokens from the user's input and the model's vocabulary, any bytes: json_text
// (json_output.h) keeps every line valid UTF-8 JSON. A weight that is not finite is written as null.
std::string attention_json_line(const AttentionRecord& r) {
  FloatJson panels = FloatJson::array();
  for (size_t l = 0; l < r.layers; ++l) {
    for (size_t h = 0; h < r.heads; ++h) {
      FloatJson weights = FloatJson::array();
      for (size_t t = 0; t < r.target.size(); ++t) {
        FloatJson row = FloatJson::array();
        for (size_t s = 0; s < r.source.size(); ++s) {
          const float v = r.at(t, l * r.heads + h, s);
          row.push_back(std::isfinite(v) ? json_number(v, 6) : FloatJson(nullptr));
        }
        weights.push_back(std::move(row));
      }
      panels.push_back({{"layer", l}, {"head", h}, {"weights", std::move(weights)}});
    }
  }
  const FloatJson record = {{"line", r.line},     {"source", r.source}, {"target", r.target},
                            {"layers", r.layers}, {"heads", r.heads},   {"panels", std::move(panels)}};
  std::string text;
  (void)json_text(record, &text);  // cannot fail: every number is finite
  return text;
}

std::string attention_svg(const std::vector<AttentionRecord>& records) {
  std::string body;
  double y = 84;  // below the legend
  double width = 520;  // room for the legend
  for (const AttentionRecord& r : records) {
    const size_t rows = r.target.size(), cols = r.source.size();
    const double left = label_width(r.target), top = label_width(r.source) + 26;
    const double panel_w = left + static_cast<double>(cols) * kCell, panel_h = top + static_cast<double>(rows) * kCell;
    const std::vector<Panel> panels = shown_panels(r);
    body += "<g class=\"sentence\" data-line=\"" + std::to_string(r.line) + "\" transform=\"translate(10," + px(y) + ")\">\n";
    body += "<text class=\"heading\" x=\"0\" y=\"0\" font-weight=\"bold\">line " + std::to_string(r.line + 1) + "</text>\n";
    for (size_t p = 0; p < panels.size(); ++p) {
      const double px0 = static_cast<double>(p % kPanelsPerRow) * (panel_w + kGap);
      const double py0 = 12 + static_cast<double>(p / kPanelsPerRow) * (panel_h + kGap);
      width = std::max(width, 20 + px0 + panel_w);
      body += "<g class=\"panel\" transform=\"translate(" + px(px0) + "," + px(py0) + ")\">\n";
      body += "<text x=\"" + px(left) + "\" y=\"14\" font-style=\"italic\">" + xml_escape(panels[p].title) + "</text>\n";
      for (size_t s = 0; s < cols; ++s) {  // column labels, written upwards above their column
        const double cx = left + (static_cast<double>(s) + 0.5) * kCell + 4, cy = top - 4;
        body += "<text class=\"source\" transform=\"translate(" + px(cx) + "," + px(cy) + ") rotate(-90)\">" +
                xml_escape(r.source[s]) + "</text>\n";
      }
      for (size_t t = 0; t < rows; ++t) {
        const double cy = top + (static_cast<double>(t) + 0.5) * kCell + 4;
        body += "<text class=\"target\" x=\"" + px(left - 4) + "\" y=\"" + px(cy) + "\" text-anchor=\"end\">" +
                xml_escape(r.target[t]) + "</text>\n";
        for (size_t s = 0; s < cols; ++s) {
          const float v = panels[p].values[t * cols + s];
          body += "<rect class=\"cell\" x=\"" + px(left + static_cast<double>(s) * kCell) + "\" y=\"" +
                  px(top + static_cast<double>(t) * kCell) + "\" width=\"" + px(kCell) + "\" height=\"" + px(kCell) +
                  "\" fill=\"" + colour(v) + "\"><title>" + xml_escape(r.target[t]) + " / " + xml_escape(r.source[s]) +
                  ": " + number(v) + "</title></rect>\n";
        }
      }
      body += "</g>\n";
    }
    const size_t panel_rows = (panels.size() + kPanelsPerRow - 1) / kPanelsPerRow;
    y += 12 + static_cast<double>(panel_rows) * (panel_h + kGap) + kGap;
    body += "</g>\n";
  }
  std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(width) + "\" height=\"" + px(y) +
         "\" viewBox=\"0 0 " + px(width) + " " + px(y) + "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<title>heed translate: attention (rows: target tokens, columns: source tokens)</title>\n";
  svg += "<defs><linearGradient id=\"scale\"><stop offset=\"0\" stop-color=\"" + colour(0) +
         "\"/><stop offset=\"1\" stop-color=\"" + colour(1) + "\"/></linearGradient></defs>\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  svg += "<g class=\"legend\" transform=\"translate(10,10)\">\n";
  svg += "<text x=\"0\" y=\"12\">attention probability (rows: target tokens, columns: source tokens)</text>\n";
  svg += "<rect x=\"0\" y=\"20\" width=\"200\" height=\"12\" fill=\"url(#scale)\" stroke=\"#888888\"/>\n";
  svg += "<text x=\"0\" y=\"46\">0</text><text x=\"100\" y=\"46\" text-anchor=\"middle\">0.5</text>"
         "<text x=\"200\" y=\"46\" text-anchor=\"end\">1</text>\n</g>\n";
  return svg + body + "</svg>\n";
}

}  // namespace heed::cli
