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
#include "heed/tokenizer.h"
#include "loader/model_index.h"

namespace heed::cli {
namespace {

// What inspect reports, collected first so the same content prints as text or as JSON.
struct Entry {
  std::string key;
  std::string value;  // the text report's
  FloatJson json;     // the JSON report's: a string, a number or a boolean
};
struct Section {
  std::string title;
  std::vector<Entry> entries;
  void text(const std::string& key, const std::string& value) { entries.push_back({key, value, value}); }
  void number(const char* key, uint64_t value) { entries.push_back({key, std::to_string(value), value}); }
  void integer(const char* key, int64_t value) { entries.push_back({key, std::to_string(value), value}); }
  void flag(const char* key, bool value) { entries.push_back({key, value ? "true" : "false", value}); }
  void real(const char* key, float value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
    // JSON has no inf or nan numbers: those are strings there.
    entries.push_back({key, text, std::isfinite(value) ? json_number(value) : FloatJson(text)});
  }
};

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

Section stack_section(const char* title, const fb::TransformerStack& s) {
  Section out{title, {}};
  out.number("num_layers", s.num_layers());
  out.number("d_model", s.d_model());
  out.number("num_heads", s.num_heads());
  out.number("num_kv_heads", s.num_kv_heads());
  out.number("head_dim", s.head_dim());
  out.number("ffn_dim", s.ffn_dim());
  out.text("activation", fb::EnumNameActivation(s.activation()));
  out.flag("gated_ffn", s.gated_ffn());
  out.text("norm", fb::EnumNameNormKind(s.norm()));
  out.real("norm_epsilon", s.norm_epsilon());
  out.flag("pre_norm", s.pre_norm());
  out.flag("final_norm", s.final_norm());
  out.flag("embedding_norm", s.embedding_norm());
  out.text("position_encoding", fb::EnumNamePositionEncoding(s.position_encoding()));
  out.number("max_positions", s.max_positions());
  out.real("rope_theta", s.rope_theta());
  out.real("embedding_scale", s.embedding_scale());
  out.number("vocab_size", s.vocab_size());
  return out;
}

// An encoder-only model's task head (docs/format.md): its kind and, for classifiers, the scores'
// function and the labels by id ("label.0" ..).
void add_encoder_head(const fb::TransformerEncoderOnly& c, Section* family) {
  family->text("head", fb::EnumNameEncoderHead(c.head()));
  if (c.head() != fb::EncoderHead::SequenceClassification) return;
  family->text("classifier_function", fb::EnumNameClassifierFunction(c.classifier_function()));
  if (c.labels() == nullptr) return;
  family->number("num_labels", c.labels()->size());
  for (flatbuffers::uoffset_t i = 0; i < c.labels()->size(); ++i) {
    family->text("label." + std::to_string(i), str(c.labels()->Get(i)));
  }
}

void add_config(const fb::Model& index, std::vector<Section>* sections) {
  Section family{"family", {}};
  family.text("type", fb::EnumNameModelConfig(index.config_type()));
  std::vector<Section> stacks;
  switch (index.config_type()) {
    case fb::ModelConfig::TransformerEncoderDecoder: {
      const auto* c = index.config_as_TransformerEncoderDecoder();
      family.flag("shared_embeddings", c->shared_embeddings());
      family.flag("tied_output", c->tied_output());
      stacks.push_back(stack_section("encoder", *c->encoder()));
      stacks.push_back(stack_section("decoder", *c->decoder()));
      break;
    }
    case fb::ModelConfig::TransformerDecoderOnly: {
      const auto* c = index.config_as_TransformerDecoderOnly();
      family.flag("tied_output", c->tied_output());
      stacks.push_back(stack_section("decoder", *c->decoder()));
      break;
    }
    case fb::ModelConfig::TransformerEncoderOnly: {
      const auto* c = index.config_as_TransformerEncoderOnly();
      family.number("type_vocab_size", c->type_vocab_size());
      add_encoder_head(*c, &family);
      stacks.push_back(stack_section("encoder", *c->encoder()));
      break;
    }
    case fb::ModelConfig::RnnSeq2Seq: {
      const auto* r = index.config_as_RnnSeq2Seq();
      family.text("cell", fb::EnumNameRnnCell(r->cell()));
      family.number("source_vocab_size", r->source_vocab_size());
      family.number("target_vocab_size", r->target_vocab_size());
      family.number("embedding_dim", r->embedding_dim());
      family.number("hidden_dim", r->hidden_dim());
      family.number("encoder_layers", r->encoder_layers());
      family.number("decoder_layers", r->decoder_layers());
      family.flag("bidirectional_encoder", r->bidirectional_encoder());
      family.text("score", fb::EnumNameAttentionScore(r->score()));
      family.text("alignment", fb::EnumNameAttentionAlignment(r->alignment()));
      family.text("placement", fb::EnumNameAttentionPlacement(r->placement()));
      family.number("window", r->window());
      family.flag("hard", r->hard());
      family.flag("input_feeding", r->input_feeding());
      family.number("attention_dim", r->attention_dim());
      family.flag("decoder_input_relu", r->decoder_input_relu());
      family.number("max_source_positions", r->max_source_positions());
      break;
    }
    case fb::ModelConfig::NONE: break;
  }
  sections->push_back(std::move(family));
  for (auto& s : stacks) sections->push_back(std::move(s));
}

void add_tokenizer(const fb::Tokenizer* t, std::vector<Section>* sections) {
  if (!t) return;
  Section out{"tokenizer", {}};
  out.text("kind", fb::EnumNameTokenizerKind(t->kind()));
  if (const fb::Vocabulary* v = t->source_vocabulary()) out.number("source_vocabulary_size", v->tokens()->size());
  if (const fb::Vocabulary* v = t->target_vocabulary()) out.number("target_vocabulary_size", v->tokens()->size());
  out.flag("shared_vocabulary", t->shared_vocabulary());
  if (t->source_model()) out.number("source_model_bytes", t->source_model()->size());
  if (t->target_model()) out.number("target_model_bytes", t->target_model()->size());
  const std::pair<const char*, int32_t> ids[] = {{"unk_id", t->unk_id()},
                                                 {"bos_id", t->bos_id()},
                                                 {"eos_id", t->eos_id()},
                                                 {"pad_id", t->pad_id()},
                                                 {"decoder_start_id", t->decoder_start_id()}};
  for (const auto& [name, id] : ids) out.integer(name, id);
  sections->push_back(std::move(out));
}

// The vocabulary shortlist's size (heed convert --vmap): its ids are not listed.
void add_vocab_map(const fb::VocabMap* map, std::vector<Section>* sections) {
  if (!map) return;
  Section out{"vocab_map", {}};
  out.number("keys", map->key_offsets()->size() - 1);
  out.number("max_ngram", map->max_ngram());
  out.number("key_ids", map->key_ids()->size());
  out.number("candidates", map->target_ids()->size());
  out.number("always", map->always() ? map->always()->size() : 0);
  sections->push_back(std::move(out));
}

std::string shape_text(const std::vector<uint32_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string quantization_text(const TensorView& t) {
  if (t.quantization == fb::Quantization::None) return "-";
  std::string s = fb::EnumNameQuantization(t.quantization);
  if (t.quantization == fb::Quantization::PerGroup) s += "(" + std::to_string(t.group_size) + ")";
  return s;
}


void print_text_section(const Section& s) {
  std::printf("%s\n", s.title.c_str());
  for (const Entry& e : s.entries) {
    std::printf("  %-24s %s\n", text_escaped(e.key).c_str(), text_escaped(e.value).c_str());
  }
}

// Sections, then the tensor table, then the last section (the totals) under it.
void print_text(const std::vector<Section>& sections, const Model& model) {
  for (size_t i = 0; i + 1 < sections.size(); ++i) print_text_section(sections[i]);
  std::printf("tensors\n  %-52s %-5s %-14s %-10s %-18s %12s\n", "name", "dtype", "quantization", "layout", "shape",
              "bytes");
  for (const TensorView& t : model.tensors()) {
    std::printf("  %-52s %-5s %-14s %-10s %-18s %12" PRIu64 "\n", text_escaped(t.name).c_str(), dtype_name(t.dtype),
                quantization_text(t).c_str(), fb::EnumNameLayout(t.layout), shape_text(t.shape).c_str(), t.size_bytes);
  }
  if (!sections.empty()) print_text_section(sections.back());
}

FloatJson tensor_json(const TensorView& t) {
  return {{"name", std::string(t.name)},
          {"dtype", dtype_name(t.dtype)},
          {"quantization", fb::EnumNameQuantization(t.quantization)},
          {"group_size", t.group_size},
          {"layout", fb::EnumNameLayout(t.layout)},
          {"activation_block", t.activation_block},
          {"outlier_channels", t.num_outlier_channels},
          {"shape", t.shape},
          {"bytes", t.size_bytes}};
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

void print_json(const std::vector<Section>& sections, const Model& model) {
  FloatJson report = FloatJson::object();
  for (const Section& s : sections) {
    FloatJson& members = report[s.title] = FloatJson::object();
    for (const Entry& e : s.entries) members[e.key] = e.json;
  }
  FloatJson& tensors = report["tensors"] = FloatJson::array();
  for (const TensorView& t : model.tensors()) tensors.push_back(tensor_json(t));
  std::string text;
  (void)json_lines(report, &text);  // cannot fail: every number is finite (real() writes others as text)
  std::fputs(text.c_str(), stdout);
}

void print_model(const std::string& path, const Model& model, bool json) {
  const fb::Model& index = model.index();
  std::vector<Section> sections;
  Section file{"file", {}};
  file.text("path", path);
  file.number("format_version", index.format_version());
  sections.push_back(std::move(file));
  if (const fb::Producer* p = index.producer()) {
    Section producer{"producer", {}};
    producer.text("name", str(p->name()));
    producer.text("version", str(p->version()));
    producer.text("source_format", str(p->source_format()));
    producer.text("source_name", str(p->source_name()));
    sections.push_back(std::move(producer));
  }
  add_config(index, &sections);
  add_tokenizer(index.tokenizer(), &sections);
  add_vocab_map(index.vocab_map(), &sections);
  Section metadata{"metadata", {}};
  if (index.metadata()) {
    for (const fb::KeyValue* kv : *index.metadata()) metadata.text(kv->key()->c_str(), str(kv->value()));
  }
  sections.push_back(std::move(metadata));

  uint64_t elements = 0, scale_values = 0, row_sum_values = 0;
  for (const TensorView& t : model.tensors()) {
    elements += t.num_elements();
    scale_values += t.num_scales;
    if (t.row_sums != nullptr) row_sum_values += t.rows();
  }
  // Scale and row sum tensors are tensors of the file but not parameters of the model.
  Section totals{"totals", {}};
  totals.number("tensors", model.tensors().size());
  totals.number("parameters", elements - scale_values - row_sum_values);
  totals.number("scale_values", scale_values);
  totals.number("weight_bytes", index.weights_size());
  totals.number("file_bytes", model.file_size());
  sections.push_back(std::move(totals));

  if (json) {
    print_json(sections, model);
  } else {
    print_text(sections, model);
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
