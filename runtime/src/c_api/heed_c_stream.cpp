// The C API's streaming translation (heed_translate_stream): greedy or sampled decoding of one
// sentence with a callback per target token, through the engine's per-step hook.
#include <algorithm>
#include <string>
#include <vector>

#include "c_api/c_api_support.h"
#include "heed/heed.h"
#include "tokenizer/token_pieces.h"

namespace {

using heed::c_api::fail;
using heed::c_api::record;

// What the engine's on_token hook needs to call the caller's callback.
struct Stream {
  heed_translator* translator;
  const heed::DecodeControls* controls;
  heed_token_callback on_token;
  void* user;
  int32_t previous = -1;
};

bool forward(void* self, size_t, size_t, int32_t token, float) {
  Stream& s = *static_cast<Stream*>(self);
  const heed::DecodeControls& c = *s.controls;
  const bool end = c.num_end_ids == 0 ? token == s.translator->translator->conventions().eos_id
                                      : std::find(c.end_ids, c.end_ids + c.num_end_ids, token) != c.end_ids + c.num_end_ids;
  if (end) return true;  // the engine stops there; the end token is not reported
  const std::string_view piece = s.translator->pieces->piece(s.previous, token);
  s.previous = token;
  return s.on_token(s.user, token, piece.data(), piece.size()) == 0;
}

}  // namespace

extern "C" {

heed_status heed_translate_stream(heed_translator* translator, const char* text, const heed_decode_options* options,
                                  heed_token_callback on_token, void* user, char* out, size_t out_capacity,
                                  size_t* out_length) {
  if (!translator) return HEED_INVALID_ARGUMENT;
  std::string* err = &translator->last_error;
  return heed::c_api::exclusive_call(translator, "heed_translate_stream", [&]() -> heed_status {
    err->clear();
    if (!text || !on_token || !out_length || (!out && out_capacity > 0)) {
      return fail(HEED_INVALID_ARGUMENT, "heed_translate_stream: a required pointer is null", err);
    }
    heed_decode_options greedy;
    heed_decode_options_init(&greedy);
    greedy.beam_size = 1;
    heed::c_api::DecodeRequest request;
    heed_status s = heed::c_api::make_request(translator, options ? options : &greedy, &request, err);
    if (s != HEED_OK) return s;
    if (request.options.beam_size != 1) {
      return fail(HEED_INVALID_ARGUMENT, "heed_translate_stream: streaming needs beam_size 1 (greedy or sampling)", err);
    }
    std::vector<std::vector<std::string>> sources(1), prefixes(1);
    s = heed::c_api::source_pieces(translator, text, &sources[0], err);
    if (s == HEED_OK) s = heed::c_api::target_pieces(translator, request.target_prefix, &prefixes[0], err);
    if (s != HEED_OK) return s;
    Stream stream{translator, &request.options.controls, on_token, user};
    request.options.on_token = forward;
    request.options.on_token_user = &stream;
    std::vector<std::vector<heed::TranslationHypothesis>> hypotheses;
    s = record(translator->translator->translate_tokens(sources, request.options,
                                                        prefixes[0].empty() ? nullptr : &prefixes, &hypotheses),
               err);
    if (s != HEED_OK) return s;
    s = heed::c_api::hypothesis_text(translator, hypotheses[0][0], &translator->text, err);
    if (s != HEED_OK) return s;
    return heed::c_api::copy_text_out(translator->text, out, out_capacity, out_length, err);
  });
}

}  // extern "C"
