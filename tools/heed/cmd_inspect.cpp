// `heed inspect FILE`: loads a .heed file with every check the runtime makes and prints what is in
// it: producer, format version, family and every hyperparameter, tokenizer, vocabulary shortlist,
// metadata, a table of all tensors and totals; or (--vocab) one side's vocabulary. A file that
// fails a check gives one line on stderr and exit code 1.
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "json_output.h"
#include "text_escape.h"
#include "heed/model.h"
#include "heed/model_description.h"
#include "heed/tokenizer.h"

namespace heed::cli {
namespace {

// An entry's value in the JSON report: a string, a number or a boolean. JSON has no inf or nan
// numbers: those are strings there.
FloatJson entry_json(const DescriptionEntry& e) {
  switch (e.kind) {
    case DescriptionEntry::Kind::Unsigned: return e.unsigned_value;
    case DescriptionEntry::Kind::Signed: return e.signed_value;
    case DescriptionEntry::Kind::Flag: return e.flag;
    case DescriptionEntry::Kind::Real: return std::isfinite(e.real) ? json_number(e.real) : FloatJson(e.text);
    case DescriptionEntry::Kind::Text: break;
  }
  return e.text;
}

std::string shape_text(const std::vector<uint32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string quantization_text(const TensorDescription& t) {
  if (t.quantization == "None") return "-";
  std::string s = t.quantization;
  if (t.quantization == "PerGroup") s += "(" + std::to_string(t.group_size) + ")";
  return s;
}

using Section = DescriptionSection;
using Entry = DescriptionEntry;

void print_text_section(const Section& s) {
  std::printf("%s\n", s.title.c_str());
  for (const Entry& e : s.entries) {
    std::printf("  %-24s %s\n", text_escaped(e.key).c_str(), text_escaped(e.text).c_str());
  }
}

// Sections, then the tensor table, then the last section (the totals) under it.
void print_text(const std::vector<Section>& sections, const std::vector<TensorDescription>& tensors) {
  for (size_t i = 0; i + 1 < sections.size(); ++i) print_text_section(sections[i]);
  std::printf("tensors\n  %-52s %-5s %-14s %-10s %-18s %12s\n", "name", "dtype", "quantization", "layout", "shape",
              "bytes");
  for (const TensorDescription& t : tensors) {
    std::printf("  %-52s %-5s %-14s %-10s %-18s %12" PRIu64 "\n", text_escaped(t.name).c_str(), t.dtype.c_str(),
                quantization_text(t).c_str(), t.layout.c_str(), shape_text(t.shape).c_str(), t.bytes);
  }
  if (!sections.empty()) print_text_section(sections.back());
}

FloatJson tensor_json(const TensorDescription& t) {
  return {{"name", t.name},
          {"dtype", t.dtype},
          {"quantization", t.quantization},
          {"group_size", t.group_size},
          {"layout", t.layout},
          {"activation_block", t.activation_block},
          {"outlier_channels", t.outlier_channels},
          {"shape", t.shape},
          {"bytes", t.bytes}};
}

// The report as one JSON object, laid out one member per line and an array's elements one per
// line (a section or a tensor is one line); each line's JSON is json_text's.
Status json_lines(const FloatJson& report, std::string* out) {
  std::string text;
  *out = "{";
  for (auto it = report.begin(); it != report.end(); ++it) {
    HEED_RETURN_IF_ERROR(json_text(FloatJson(it.key()), &text));
    *out += (it == report.begin() ? "\n  " : ",\n  ") + text + ": ";
    if (!it.value().is_array()) {
      HEED_RETURN_IF_ERROR(json_text(it.value(), &text));
      *out += text;
      continue;
    }
    *out += "[";
    for (size_t i = 0; i < it.value().size(); ++i) {
      HEED_RETURN_IF_ERROR(json_text(it.value()[i], &text));
      *out += (i ? ",\n    " : "\n    ") + text;
    }
    *out += "\n  ]";
  }
  *out += "\n}\n";
  return Status::success();
}

void print_json(const std::vector<Section>& sections, const std::vector<TensorDescription>& tensor_list) {
  FloatJson report = FloatJson::object();
  for (const Section& s : sections) {
    FloatJson& members = report[s.title] = FloatJson::object();
    for (const Entry& e : s.entries) members[e.key] = entry_json(e);
  }
  FloatJson& tensors = report["tensors"] = FloatJson::array();
  for (const TensorDescription& t : tensor_list) tensors.push_back(tensor_json(t));
  std::string text;
  (void)json_lines(report, &text);  // cannot fail: every number is finite (real() writes others as text)
  std::fputs(text.c_str(), stdout);
}

// The runtime's description, with the path first in its "file" section.
void print_model(const std::string& path, const Model& model, bool json) {
  ModelDescription d = describe(model);
  auto& file_entries = d.sections.front().entries;
  file_entries.insert(file_entries.begin(), DescriptionEntry{"path", path, DescriptionEntry::Kind::Text});
  if (json) {
    print_json(d.sections, d.tensors);
  } else {
    print_text(d.sections, d.tensors);
  }
}

// --vocab: the tokens of one side, one per line in id order, escaped so that no token can span
// two lines (or hide a space at a line's end).
int print_vocabulary(const Model& model, TokenizerSide side) {
  std::vector<std::string> tokens;
  const Status status = tokenizer_vocabulary(model, side_of(model, side), &tokens);
  if (!status.is_ok()) {
    std::fprintf(stderr, "heed inspect: %s\n", status.message().c_str());
    return kExitError;
  }
  for (const std::string& token : tokens) std::printf("%s\n", token_escaped(token).c_str());
  return kExitOk;
}

constexpr const char* kDescription =
    "Checks a .heed file the way the runtime does and prints its producer, format version, model\n"
    "family and hyperparameters, tokenizer, vocabulary shortlist (its size, when the file has one),\n"
    "metadata, every tensor and totals.\n"
    "\n"
    "--vocab prints the vocabulary instead and nothing else: one token per line in id order (line N\n"
    "holds id N-1), the source side of a translation model unless --side target (models with one\n"
    "vocabulary have one, which either side names). Tokens are written as `heed tokenize` writes\n"
    "pieces: control bytes, bytes that are not UTF-8, the backslash and the space as \\xNN, so a\n"
    "token holding a line break or a terminal escape stays on its line and shows what it holds.";

int run_inspect(const std::vector<std::string>& argv) {
  Args args("inspect", "FILE [--json | --vocab [--side source|target]]", kDescription,
            {{"json", 0, false, "", "print the report as one JSON object"},
             {"vocab", 0, false, "", "print the vocabulary, one token per line, instead of the report"},
             side_option(),
             {"no-mmap", 0, false, "", "read the file into memory instead of mapping it"}});
  if (!args.parse(argv)) return kExitUsage;
  if (args.help_requested()) return kExitOk;
  if (args.positionals().size() != 1) return args.usage_error("expected exactly one FILE");
  if (args.has("vocab") && args.has("json")) return args.usage_error("give --json or --vocab, not both");
  if (args.has("side") && !args.has("vocab")) return args.usage_error("--side goes with --vocab");
  const auto side = get_side(args);
  if (!side) return kExitUsage;
  const std::string& path = args.positionals()[0];
  LoadOptions options;
  options.use_mmap = !args.has("no-mmap");
  std::unique_ptr<Model> model;
  const Status status = Model::open(path, options, &model);
  if (!status.is_ok()) {
    // The loader's messages begin with the path already.
    std::fprintf(stderr, "heed inspect: %s\n", status.message().c_str());
    return kExitError;
  }
  if (args.has("vocab")) return print_vocabulary(*model, *side);
  print_model(path, *model, args.has("json"));
  return kExitOk;
}

}  // namespace

HEED_REGISTER_COMMAND(inspect, "inspect", "check a .heed file and show its configuration and tensors", 20,
                      &run_inspect);

}  // namespace heed::cli
