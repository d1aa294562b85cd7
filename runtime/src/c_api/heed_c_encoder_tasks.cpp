// The C API of BERT's task heads: heed_classifier (Classifier) and heed_mask_filler (MaskFiller).
#include <memory>
#include <string>
#include <vector>

#include "c_api_support.h"
#include "heed/encoder_tasks.h"

struct heed_classifier {
  std::unique_ptr<heed::Classifier> task;
  std::string last_error;
};

struct heed_mask_filler {
  std::unique_ptr<heed::MaskFiller> task;
  std::string last_error;
};

namespace {

using heed::c_api::fail;
using heed::c_api::guarded;
using heed::c_api::record;

// The room check of the mask calls: too small is HEED_BUFFER_TOO_SMALL, with *masks set.
heed_status fill_status(const heed::Status& s, size_t masks, size_t top_k, size_t capacity, std::string* err) {
  const heed_status st = record(s, err);
  if (st == HEED_INVALID_ARGUMENT && top_k > 0 && masks > capacity / top_k) return HEED_BUFFER_TOO_SMALL;
  return st;
}

}  // namespace

extern "C" {

heed_status heed_classifier_create(heed_model* model, const heed_embedder_options* options,
                                   heed_classifier** out_classifier) {
  return heed::c_api::create_encoder_handle(model, options, out_classifier, "heed_classifier_create",
                                            &heed_classifier::task);
}

heed_status heed_mask_filler_create(heed_model* model, const heed_embedder_options* options,
                                    heed_mask_filler** out_filler) {
  return heed::c_api::create_encoder_handle(model, options, out_filler, "heed_mask_filler_create",
                                            &heed_mask_filler::task);
}

const char* heed_classifier_last_error(const heed_classifier* c) { return c ? c->last_error.c_str() : ""; }
const char* heed_mask_filler_last_error(const heed_mask_filler* f) { return f ? f->last_error.c_str() : ""; }
void heed_classifier_free(heed_classifier* c) { delete c; }
void heed_mask_filler_free(heed_mask_filler* f) { delete f; }
size_t heed_classifier_num_labels(const heed_classifier* c) { return c && c->task ? c->task->num_labels() : 0; }

const char* heed_classifier_label(const heed_classifier* c, size_t id) {
  return c && c->task && id < c->task->num_labels() ? c->task->label(id).c_str() : nullptr;
}

heed_status heed_classify_text(heed_classifier* c, const char* text, float* out, size_t capacity) {
  if (!c) return HEED_INVALID_ARGUMENT;
  return guarded(&c->last_error, [&]() -> heed_status {
    c->last_error.clear();
    if (!text || !out) return fail(HEED_INVALID_ARGUMENT, "heed_classify_text: text or out is null", &c->last_error);
    if (capacity < c->task->num_labels()) {
      return fail(HEED_BUFFER_TOO_SMALL, "heed_classify_text: out holds fewer floats than there are labels",
                  &c->last_error);
    }
    std::vector<int32_t> ids;
    const heed_status st = record(c->task->encode(text, &ids), &c->last_error);
    if (st != HEED_OK) return st;
    const size_t offsets[] = {0, ids.size()};
    return record(c->task->classify_ids(heed::TokenBatch{ids.data(), offsets, 1}, out), &c->last_error);
  });
}

heed_status heed_classify_ids(heed_classifier* c, const int32_t* ids, const size_t* offsets, size_t batch, int logits,
                              float* out, size_t capacity) {
  if (!c) return HEED_INVALID_ARGUMENT;
  return guarded(&c->last_error, [&]() -> heed_status {
    c->last_error.clear();
    if (!ids || !offsets || !out) {
      return fail(HEED_INVALID_ARGUMENT, "heed_classify_ids: ids, offsets or out is null", &c->last_error);
    }
    if (batch <= c->task->max_batch() && capacity / c->task->num_labels() < batch) {
      return fail(HEED_BUFFER_TOO_SMALL, "heed_classify_ids: out holds fewer than batch x labels floats",
                  &c->last_error);
    }
    const heed::TokenBatch b{ids, offsets, batch};
    return record(logits ? c->task->logits(b, out) : c->task->classify_ids(b, out), &c->last_error);
  });
}

int32_t heed_mask_filler_mask_id(const heed_mask_filler* f) { return f && f->task ? f->task->mask_id() : -1; }

const char* heed_mask_filler_token(const heed_mask_filler* f, int32_t id) {
  if (!f || !f->task || id < 0 || static_cast<size_t>(id) >= f->task->vocab_size()) return nullptr;
  return f->task->token(id).c_str();
}

heed_status heed_fill_mask_ids(heed_mask_filler* f, const int32_t* ids, const size_t* offsets, size_t batch,
                               size_t top_k, heed_mask_candidate* out, size_t capacity, size_t* masks) {
  if (!f) return HEED_INVALID_ARGUMENT;
  return guarded(&f->last_error, [&]() -> heed_status {
    f->last_error.clear();
    if (!ids || !offsets || !masks) {
      return fail(HEED_INVALID_ARGUMENT, "heed_fill_mask_ids: ids, offsets or masks is null", &f->last_error);
    }
    static_assert(sizeof(heed_mask_candidate) == sizeof(heed::MaskCandidate), "one layout");
    *masks = 0;
    const heed::Status s = f->task->fill_ids(heed::TokenBatch{ids, offsets, batch}, top_k,
                                             reinterpret_cast<heed::MaskCandidate*>(out), out ? capacity : 0, masks);
    return fill_status(s, *masks, top_k, out ? capacity : 0, &f->last_error);
  });
}

heed_status heed_fill_mask_text(heed_mask_filler* f, const char* text, size_t top_k, heed_mask_candidate* out,
                                size_t capacity, size_t* masks) {
  if (!f) return HEED_INVALID_ARGUMENT;
  std::vector<int32_t> ids;
  const heed_status st = guarded(&f->last_error, [&]() -> heed_status {
    if (!text) return fail(HEED_INVALID_ARGUMENT, "heed_fill_mask_text: text is null", &f->last_error);
    return record(f->task->encode(text, &ids), &f->last_error);
  });
  if (st != HEED_OK) return st;
  const size_t offsets[] = {0, ids.size()};
  return heed_fill_mask_ids(f, ids.data(), offsets, 1, top_k, out, capacity, masks);
}

}  // extern "C"
