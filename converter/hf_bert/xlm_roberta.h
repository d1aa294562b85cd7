// `heed convert --from hf-xlm-roberta`: what an XLM-RoBERTa folder (model_type "xlm-roberta":
// XLM-R, multilingual e5, paraphrase-multilingual and other sentence-transformers models) changes
// in the hf-bert reader. modeling_xlm_roberta is BERT's encoder with three differences heed maps
// onto the same file: positions are numbered from padding_idx + 1 (pad_token_id + 1), so the
// position table keeps its rows from there on (a sentence of n tokens uses rows pad+1 .. pad+n,
// which become rows 0 .. n-1); the token type table has one row; the tokenizer is tokenizer.json's
// Unigram with its <s> ... </s> post-processor (tokenizer_json_unigram.*). The weights may sit
// under "roberta." (XLMRobertaForMaskedLM and other task models; their heads are not read).
// Known difference: transformers gives a literal <pad> written inside the text the padding
// position and does not advance the positions after it; heed numbers every token.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "heed/status.h"
#include "neutral_model.h"
#include "tensor_mapper.h"

namespace heed::convert::hf_bert {

bool is_xlm_roberta_type(const std::string& model_type);

// True when `dir` holds config.json with model_type "xlm-roberta" and a tokenizer.json.
bool looks_like_xlm_roberta(const std::string& dir);

// The position rows padding takes: pad_token_id + 1 (config.json's pad_token_id, default 1).
Status xlm_roberta_position_offset(const nlohmann::json& config, const std::string& path, uint32_t* offset);

// embeddings.position_embeddings.weight [*max_positions, d] without its first `offset` rows, as
// heed's encoder.positions; *max_positions becomes the positions a sentence can use.
Status take_offset_positions(TensorMapper& m, uint32_t offset, uint64_t d, uint32_t* max_positions);

// tokenizer.json's Unigram as the file's tokenizer section; tokenizer_config.json (`tc`) may name
// the pad token (default <pad>).
Status read_xlm_roberta_tokenizer(const std::string& dir, uint32_t vocab_size, const nlohmann::json& tc,
                                  fb::TokenizerT* out);

}  // namespace heed::convert::hf_bert
