// describe(): a loaded model's file index and tensors as plain values (heed/model_description.h).
#include "describe/section_builder.h"

namespace heed {
namespace describing {
namespace {

void add_file(const fb::Model& index, ModelDescription* d) {
  SectionBuilder file("file");
  file.number("format_version", index.format_version());
  d->sections.push_back(std::move(file.section));
  if (const fb::Producer* p = index.producer()) {
    SectionBuilder producer("producer");
    producer.text("name", str(p->name()));
    producer.text("version", str(p->version()));
    producer.text("source_format", str(p->source_format()));
    producer.text("source_name", str(p->source_name()));
    d->sections.push_back(std::move(producer.section));
  }
}

void add_tokenizer(const fb::Tokenizer* t, ModelDescription* d) {
  if (!t) return;
  d->has_tokenizer = true;
  d->tokenizer_kind = api_tokenizer_kind(t->kind());
  if (const fb::Vocabulary* v = t->source_vocabulary()) d->source_vocabulary_size = v->tokens()->size();
  if (const fb::Vocabulary* v = t->target_vocabulary()) d->target_vocabulary_size = v->tokens()->size();
  SectionBuilder out("tokenizer");
  out.text("kind", fb::EnumNameTokenizerKind(t->kind()));
  if (t->source_vocabulary()) out.number("source_vocabulary_size", d->source_vocabulary_size);
  if (t->target_vocabulary()) out.number("target_vocabulary_size", d->target_vocabulary_size);
  out.flag("shared_vocabulary", t->shared_vocabulary());
  if (t->source_model()) out.number("source_model_bytes", t->source_model()->size());
  if (t->target_model()) out.number("target_model_bytes", t->target_model()->size());
  const std::pair<const char*, int32_t> ids[] = {{"unk_id", t->unk_id()},
                                                 {"bos_id", t->bos_id()},
                                                 {"eos_id", t->eos_id()},
                                                 {"pad_id", t->pad_id()},
                                                 {"decoder_start_id", t->decoder_start_id()}};
  for (const auto& [name, id] : ids) out.integer(name, id);
  d->sections.push_back(std::move(out.section));
}

// The vocabulary shortlist's size (heed convert --vmap): its ids are not listed.
void add_vocab_map(const fb::VocabMap* map, ModelDescription* d) {
  if (!map) return;
  d->has_vocab_map = true;
  SectionBuilder out("vocab_map");
  out.number("keys", map->key_offsets()->size() - 1);
  out.number("max_ngram", map->max_ngram());
  out.number("key_ids", map->key_ids()->size());
  out.number("candidates", map->target_ids()->size());
  out.number("always", map->always() ? map->always()->size() : 0);
  d->sections.push_back(std::move(out.section));
}

// The chat format (heed generate --chat): its name and parameters, or the template heed cannot render.
void add_chat_template(const fb::ChatTemplate* chat, ModelDescription* d) {
  if (!chat) return;
  SectionBuilder out("chat_template");
  out.text("format", fb::EnumNameChatFormat(chat->format()));
  if (chat->default_system()) out.text("default_system", chat->default_system()->str());
  if (chat->first_line()) out.text("first_line", chat->first_line()->str());
  if (chat->published_as()) out.text("published_as", chat->published_as()->str());
  if (chat->date()) out.text("date", chat->date_from_clock() ? "today (local clock)" : chat->date()->str());
  d->sections.push_back(std::move(out.section));
}

void add_metadata(const fb::Model& index, ModelDescription* d) {
  SectionBuilder metadata("metadata");
  if (index.metadata()) {
    for (const fb::KeyValue* kv : *index.metadata()) {
      d->metadata.emplace_back(kv->key()->c_str(), str(kv->value()));
      metadata.text(kv->key()->c_str(), str(kv->value()));
    }
  }
  d->sections.push_back(std::move(metadata.section));
}

TensorDescription tensor_description(const TensorView& t) {
  return {std::string(t.name), dtype_name(t.dtype), fb::EnumNameQuantization(t.quantization), t.group_size,
          fb::EnumNameLayout(t.layout), t.activation_block,
          static_cast<uint32_t>(t.num_outlier_channels), t.shape, t.size_bytes};
}

// Scale and row sum tensors are tensors of the file but not parameters of the model.
void add_totals(const Model& model, ModelDescription* d) {
  uint64_t elements = 0, scale_values = 0, row_sum_values = 0;
  for (const TensorView& t : file_tensors(model)) {
    elements += t.num_elements();
    scale_values += t.num_scales;
    if (t.row_sums != nullptr) row_sum_values += t.rows();
    d->tensors.push_back(tensor_description(t));
  }
  SectionBuilder totals("totals");
  totals.number("tensors", file_tensors(model).size());
  totals.number("parameters", elements - scale_values - row_sum_values);
  totals.number("scale_values", scale_values);
  totals.number("weight_bytes", file_index(model).weights_size());
  totals.number("file_bytes", model.file_size());
  d->sections.push_back(std::move(totals.section));
}

}  // namespace
}  // namespace describing

ModelDescription describe(const Model& model) {
  using namespace describing;
  const fb::Model& index = file_index(model);
  ModelDescription d;
  d.family = model.family_name();
  d.format_version = index.format_version();
  add_file(index, &d);
  add_config(index, &d.sections);
  add_tokenizer(index.tokenizer(), &d);
  add_vocab_map(index.vocab_map(), &d);
  add_chat_template(index.chat_template(), &d);
  add_metadata(index, &d);
  add_totals(model, &d);
  return d;
}

}  // namespace heed
