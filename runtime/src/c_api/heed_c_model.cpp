// The C API's questions to a model (heed/heed.h): its family, its metadata and its tokenizer.
#include <algorithm>
#include <string>
#include <vector>

#include "c_api/c_api_support.h"
#include "heed/heed.h"
#include "heed/tokenizer.h"

namespace {

using heed::c_api::fail;
using heed::c_api::model_call;
using heed::c_api::record;

heed_status side_tokenizer(heed_model* model, int side, std::unique_ptr<heed::Tokenizer>* out, std::string* err) {
  if (side != HEED_SOURCE && side != HEED_TARGET) return fail(HEED_INVALID_ARGUMENT, "side must be HEED_SOURCE or HEED_TARGET", err);
  // A model with one vocabulary (language models, encoders) has its tokenizer on the target side.
  const bool source = side == HEED_SOURCE && heed::has_source_side(*model->model);
  return record(heed::create_tokenizer(*model->model, source ? heed::TokenizerSide::kSource : heed::TokenizerSide::kTarget,
                                       out),
                err);
}

}  // namespace

extern "C" {

const char* heed_model_family(const heed_model* model) {
  if (!model) return "";
  const char* name = model->model->family_name();
  return name ? name : "";
}

const char* heed_model_metadata(const heed_model* model, const char* key) {
  return model && key ? model->model->metadata(key) : nullptr;
}

heed_status heed_tokenize(heed_model* model, int side, const char* text, int32_t* ids, size_t capacity,
                          size_t* count) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return model_call(model, [&](std::string* err) -> heed_status {
    if (!text || !count || (!ids && capacity > 0)) return fail(HEED_INVALID_ARGUMENT, "heed_tokenize: a required pointer is null", err);
    std::unique_ptr<heed::Tokenizer> tokenizer;
    heed_status s = side_tokenizer(model, side, &tokenizer, err);
    if (s != HEED_OK) return s;
    std::vector<int32_t> out;
    s = record(tokenizer->encode(text, &out), err);
    if (s != HEED_OK) return s;
    *count = out.size();
    if (capacity < out.size()) return fail(HEED_BUFFER_TOO_SMALL, "heed_tokenize: the ids do not fit", err);
    std::copy(out.begin(), out.end(), ids);
    return HEED_OK;
  });
}

heed_status heed_detokenize(heed_model* model, int side, const int32_t* ids, size_t count, char* out, size_t capacity,
                            size_t* length) {
  if (!model) return HEED_INVALID_ARGUMENT;
  return model_call(model, [&](std::string* err) -> heed_status {
    if ((!ids && count > 0) || !length || (!out && capacity > 0)) {
      return fail(HEED_INVALID_ARGUMENT, "heed_detokenize: a required pointer is null", err);
    }
    std::unique_ptr<heed::Tokenizer> tokenizer;
    heed_status s = side_tokenizer(model, side, &tokenizer, err);
    if (s != HEED_OK) return s;
    std::string text;
    s = record(tokenizer->decode(ids, count, &text), err);
    if (s != HEED_OK) return s;
    *length = text.size();
    if (capacity < text.size() + 1) return fail(HEED_BUFFER_TOO_SMALL, "heed_detokenize: the text does not fit", err);
    std::copy(text.begin(), text.end(), out);
    out[text.size()] = '\0';
    return HEED_OK;
  });
}

}  // extern "C"
