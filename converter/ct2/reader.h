// `heed convert --from ct2`: a CTranslate2 model folder (model.bin, config.json, vocabularies)
// as a NeutralModel.
//
// Supported specs: TransformerBase, TransformerBig (8 / 16 heads, revision 1 and 2 layouts),
// the unnamed spec of binary version 1, TransformerSpec (encoder-decoder), and
// TransformerDecoderSpec (decoder-only language models). Weights come out as float32 (from any
// float source, int16 dequantized) or as int8 kept bit-exactly with heed's scales (1 / CTranslate2's
// scale, since CTranslate2 stores real = q / scale and heed real = q * scale); quantize.h then
// turns them into the requested dtype.
#pragma once

#include <string>

#include "heed/status.h"
#include "neutral_model.h"

namespace heed::convert::ct2 {

// True when `dir` holds a model.bin (used to detect the format when --from is not given).
bool looks_like_model(const std::string& dir);

Status read_model(const std::string& dir, NeutralModel* out);

}  // namespace heed::convert::ct2
