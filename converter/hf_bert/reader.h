// `heed convert --from hf-bert`: a Hugging Face BERT-family folder (BERT, MiniLM and other
// model_type "bert" models, e.g. sentence-transformers' all-MiniLM-L6-v2) as an encoder-only
// NeutralModel for `heed embed`.
//
// The folder holds config.json (model_type "bert", absolute positions), model.safetensors
// (BertModel keys, or BertForMaskedLM / BertForSequenceClassification ones under "bert."),
// vocab.txt (one WordPiece entry per line, id = line number) and optionally
// tokenizer_config.json (do_lower_case, strip_accents, the special tokens) and, for
// sentence-transformers folders, 1_Pooling/config.json (the pooling the model was trained with,
// recorded as metadata embedding.pooling).
//
// modeling_bert in heed's terms: word + learned position + token type embeddings, an embedding
// LayerNorm, post-norm layers (LayerNorm after each residual, eps layer_norm_eps), no final norm,
// GELU (erf) feed-forward. config.json's "architectures" chooses the head: BertForSequenceClassification
// keeps the pooler (dense + tanh over [CLS]), the classifier and id2label (`heed classify`),
// BertForMaskedLM the MLM head "cls.predictions.*" (`heed fill-mask`); for any other model the
// pooler and task heads are not part of the sentence embeddings and are left out, by name.
#pragma once

#include <string>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::hf_bert {

// True when `dir` holds config.json with model_type "bert" and a vocab.txt.
bool looks_like_model(const std::string& dir);

Status read_model(const std::string& dir, NeutralModel* out);

}  // namespace heed::convert::hf_bert
