// `heed convert --from hf-mpnet`: what an MPNet folder (model_type "mpnet": sentence-transformers'
// all-mpnet-base-v2, multi-qa-mpnet and other MPNet encoders) changes in the hf-bert reader.
// modeling_mpnet is BERT's post-norm encoder with these differences, mapped onto the same file:
// no token type embeddings; positions numbered from padding_idx + 1 = 2 (MPNetEmbeddings fixes
// padding_idx at 1 whatever config.json says), so the position table keeps its rows from 2 on, as
// for XLM-RoBERTa (xlm_roberta.h); the attention's projections are named attn.q/k/v/o and its
// LayerNorm sits on "attention"; and one relative position bias
// (encoder.relative_attention_bias [buckets, heads]) is added to every layer's attention scores
// by the bucket of the key - query distance (TransformerEncoderOnly.relative_attention_buckets,
// docs/format.md). transformers buckets with 32 buckets and max_distance 128 whatever
// config.json's relative_attention_num_buckets says, so heed refuses other values rather than
// run a model transformers would not. The tokenizer is MPNetTokenizer: BERT's WordPiece (vocab.txt
// or tokenizer.json) with <s> ... </s> around the text and [UNK], <pad>, <mask> as its defaults.
// Only the encoder is read: task models (MPNetForSequenceClassification and others, whose heads
// heed does not run) are refused; MPNetForMaskedLM's lm_head is left out, as sentence-transformers
// folders (which name that architecture) never use it. Known difference, as for XLM-RoBERTa: a
// literal <pad> written inside the text takes the padding position in transformers (and the
// positions after it do not advance); heed numbers every token.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "heed/status.h"
#include "tensor_mapper.h"

namespace heed::convert::hf_bert {

// The special tokens a BERT-family tokenizer uses when tokenizer_config.json names none.
struct SpecialTokenDefaults {
  const char *unk, *cls, *sep, *pad, *mask;
};
inline constexpr SpecialTokenDefaults kBertSpecialTokens{"[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"};
inline constexpr SpecialTokenDefaults kMpnetSpecialTokens{"[UNK]", "<s>", "</s>", "<pad>", "<mask>"};

// The tensors of one layer's attention, under "encoder.layer.{i}.".
struct AttentionTensorNames {
  const char *query, *key, *value, *out, *norm;
};
inline constexpr AttentionTensorNames kBertAttention{"attention.self.query", "attention.self.key", "attention.self.value",
                                                     "attention.output.dense", "attention.output.LayerNorm"};
inline constexpr AttentionTensorNames kMpnetAttention{"attention.attn.q", "attention.attn.k", "attention.attn.v",
                                                      "attention.attn.o", "attention.LayerNorm"};

// The position rows MPNet's padding takes (padding_idx 1, plus one).
inline constexpr uint32_t kMpnetPositionOffset = 2;

bool is_mpnet_type(const std::string& model_type);

// True when `dir` holds config.json with model_type "mpnet" and a vocab.txt or tokenizer.json.
bool looks_like_mpnet(const std::string& dir);

// config.json's relative position settings (refused unless transformers' 32 buckets) and
// architecture (refused for task heads heed does not run).
Status read_mpnet_config(const nlohmann::json& config, const std::string& path, uint32_t* buckets,
                         uint32_t* max_distance);

// encoder.relative_attention_bias.weight [buckets, heads] as heed's float32 table.
Status take_relative_attention_bias(TensorMapper& m, uint32_t buckets, uint32_t heads);

}  // namespace heed::convert::hf_bert
