// describe(): the model family's section and its transformer stacks' sections.
#include "describe/section_builder.h"

namespace heed::describing {
namespace {

DescriptionSection stack_section(const char* title, const fb::TransformerStack& s) {
  SectionBuilder out(title);
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
  return std::move(out.section);
}

// An encoder-only model's task head (docs/format.md): its kind and, for classifiers, the scores'
// function and the labels by id ("label.0" ..).
void add_encoder_head(const fb::TransformerEncoderOnly& c, SectionBuilder* family) {
  family->text("head", fb::EnumNameEncoderHead(c.head()));
  if (c.head() != fb::EncoderHead::SequenceClassification) return;
  family->text("classifier_function", fb::EnumNameClassifierFunction(c.classifier_function()));
  if (c.labels() == nullptr) return;
  family->number("num_labels", c.labels()->size());
  for (flatbuffers::uoffset_t i = 0; i < c.labels()->size(); ++i) {
    family->text("label." + std::to_string(i), str(c.labels()->Get(i)));
  }
}

void add_rnn(const fb::RnnSeq2Seq& r, SectionBuilder* family) {
  family->text("cell", fb::EnumNameRnnCell(r.cell()));
  family->number("source_vocab_size", r.source_vocab_size());
  family->number("target_vocab_size", r.target_vocab_size());
  family->number("embedding_dim", r.embedding_dim());
  family->number("hidden_dim", r.hidden_dim());
  family->number("encoder_layers", r.encoder_layers());
  family->number("decoder_layers", r.decoder_layers());
  family->flag("bidirectional_encoder", r.bidirectional_encoder());
  family->text("score", fb::EnumNameAttentionScore(r.score()));
  family->text("alignment", fb::EnumNameAttentionAlignment(r.alignment()));
  family->text("placement", fb::EnumNameAttentionPlacement(r.placement()));
  family->number("window", r.window());
  family->flag("hard", r.hard());
  family->flag("input_feeding", r.input_feeding());
  family->number("attention_dim", r.attention_dim());
  family->flag("decoder_input_relu", r.decoder_input_relu());
  family->number("max_source_positions", r.max_source_positions());
}

}  // namespace

void add_config(const fb::Model& index, std::vector<DescriptionSection>* sections) {
  SectionBuilder family("family");
  family.text("type", fb::EnumNameModelConfig(index.config_type()));
  std::vector<DescriptionSection> stacks;
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
      if (c->relative_attention_buckets() > 0) {  // MPNet's relative position bias
        family.number("relative_attention_buckets", c->relative_attention_buckets());
        family.number("relative_attention_max_distance", c->relative_attention_max_distance());
      }
      add_encoder_head(*c, &family);
      stacks.push_back(stack_section("encoder", *c->encoder()));
      break;
    }
    case fb::ModelConfig::RnnSeq2Seq: add_rnn(*index.config_as_RnnSeq2Seq(), &family); break;
    case fb::ModelConfig::NONE: break;
  }
  sections->push_back(std::move(family.section));
  for (auto& s : stacks) sections->push_back(std::move(s));
}

}  // namespace heed::describing
