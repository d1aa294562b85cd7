// The Embedder: an encoder-only session, the model's WordPiece tokenizer and pooling together.
#include "heed/embedder.h"

#include <algorithm>

#include "embedder/encoder_task.h"

#include <cstdlib>
#include <string_view>

namespace heed {

bool parse_pooling(std::string_view name, Pooling* out) {
  if (name == "mean") {
    *out = Pooling::kMean;
  } else if (name == "cls") {
    *out = Pooling::kCls;
  } else {
    return false;
  }
  return true;
}

const char* pooling_name(Pooling pooling) { return pooling == Pooling::kCls ? "cls" : "mean"; }

Embedder::Embedder() = default;
Embedder::~Embedder() = default;

namespace {

// The tokens per sentence a session reads when the caller leaves it to the model: the length the
// model was trained to read (sentence-transformers' max_seq_length, metadata embedding.max_length)
// within its position table, else the table (0: EncoderOnly's own default).
size_t default_max_length(const Model& model, size_t asked) {
  if (asked != 0) return asked;
  const char* recorded = model.metadata("embedding.max_length");
  if (recorded == nullptr) return 0;
  const size_t trained = std::strtoull(recorded, nullptr, 10);
  const size_t positions = model.position_limits().source;
  return positions != 0 && trained > positions ? positions : trained;
}

}  // namespace

Status Embedder::create(const Model& model, const EmbedderOptions& options, std::unique_ptr<Embedder>* out) {
  std::unique_ptr<Embedder> e(new Embedder());
  HEED_RETURN_IF_ERROR(EncoderTask::create(model, models::EncoderTask::kEmbed, options.max_batch,
                                           default_max_length(model, options.max_length), &options.arena, nullptr,
                                           {options.threads, options.spin_microseconds}, &e->task_));
  const char* recorded = model.metadata("embedding.pooling");
  const std::string pooling = recorded ? recorded : "";
  if (!pooling.empty() && !parse_pooling(pooling, &e->default_pooling_)) {
    return invalid_file("metadata embedding.pooling is '" + pooling + "' (mean or cls)");
  }
  const char* normalize = model.metadata("embedding.normalize");
  e->default_normalize_ = normalize != nullptr && std::string_view(normalize) == "true";
  *out = std::move(e);
  return Status::success();
}

Status Embedder::open(const std::string& path, const EmbedderOptions& options, std::unique_ptr<Embedder>* out) {
  return EncoderTask::open(path, options, out);
}

Status Embedder::plan(const Model& model, const EmbedderOptions& options, ArenaReport* out) {
  return EncoderTask::create(model, models::EncoderTask::kEmbed, options.max_batch,
                             default_max_length(model, options.max_length), nullptr, out,
                             {options.threads, options.spin_microseconds}, nullptr);
}

size_t Embedder::dimension() const { return task_->session().dimension(); }
size_t Embedder::max_batch() const { return task_->session().max_batch(); }
size_t Embedder::max_length() const { return task_->session().max_length(); }
const ArenaReport& Embedder::arena_report() const { return task_->session().arena_report(); }

Status Embedder::embed_ids(const TokenBatch& batch, Pooling pooling, bool normalize, float* out) {
  if (out == nullptr) return invalid_argument("embed_ids needs an output buffer");
  HEED_RETURN_IF_ERROR(task_->session().encode(batch));
  task_->session().pool(pooling, normalize, out);
  return Status::success();
}

const float* Embedder::last_hidden_states(size_t i, size_t* length) const {
  return task_->session().hidden_states(i, length);
}

Status Embedder::encode(std::string_view text, std::vector<int32_t>* ids) const { return task_->encode(text, ids); }

Status Embedder::embed_text(const std::vector<std::string>& texts, Pooling pooling, bool normalize,
                            std::vector<float>* out) {
  out->assign(texts.size() * dimension(), 0.0f);
  return task_->for_each_batch(texts, [&](const TokenBatch& batch, size_t first) {
    return embed_ids(batch, pooling, normalize, out->data() + first * dimension());
  });
}

}  // namespace heed
