// `heed convert --from torch-seq2seq`: a PyTorch RNN encoder-decoder with attention, saved as
// DIR/model.safetensors (its state_dict) + DIR/config.json (the variant and the vocabularies),
// as a NeutralModel of the RnnSeq2Seq family. docs/torch-seq2seq.md lists the expected parameter
// names, shapes and config keys; scripts/attention_zoo/zoo_model.py is a model that produces them.
#pragma once

#include <string>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::torch_seq2seq {

// True when DIR holds model.safetensors and a config.json with the RNN keys ("cell", "placement").
bool looks_like_model(const std::string& dir);

Status read_model(const std::string& dir, NeutralModel* out);

}  // namespace heed::convert::torch_seq2seq
