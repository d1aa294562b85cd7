// The Classifier: an encoder-only session with the sequence classification head, and its text layer.
#include "embedder/encoder_task.h"
#include "heed/encoder_tasks.h"

namespace heed {

const char* score_function_name(ScoreFunction f) {
  static const char* const kNames[] = {"softmax", "sigmoid", "none"};
  return kNames[static_cast<size_t>(f)];
}

EncoderTaskRunner::EncoderTaskRunner() = default;
EncoderTaskRunner::~EncoderTaskRunner() = default;
size_t EncoderTaskRunner::max_batch() const { return task_->session().max_batch(); }
size_t EncoderTaskRunner::max_length() const { return task_->session().max_length(); }
const ArenaReport& EncoderTaskRunner::arena_report() const { return task_->session().arena_report(); }
Status EncoderTaskRunner::encode(std::string_view text, std::vector<int32_t>* ids) const {
  return task_->encode(text, ids);
}

Status Classifier::create(const Model& model, const EncoderTaskOptions& options, std::unique_ptr<Classifier>* out) {
  std::unique_ptr<Classifier> c(new Classifier());
  HEED_RETURN_IF_ERROR(EncoderTask::create(model, models::EncoderTask::kClassify, options, &c->task_));
  *out = std::move(c);
  return Status::success();
}

Status Classifier::open(const std::string& path, const EncoderTaskOptions& options, std::unique_ptr<Classifier>* out) {
  return EncoderTask::open(path, options, out);
}

Status Classifier::plan(const Model& model, const EncoderTaskOptions& options, ArenaReport* out) {
  return EncoderTask::plan(model, models::EncoderTask::kClassify, options, out);
}

size_t Classifier::num_labels() const { return task_->session().classifier().num_labels(); }
const std::string& Classifier::label(size_t id) const { return task_->session().classifier().labels()[id]; }

ScoreFunction Classifier::function() const {
  switch (task_->session().classifier().function()) {
    case fb::ClassifierFunction::Sigmoid: return ScoreFunction::kSigmoid;
    case fb::ClassifierFunction::Identity: return ScoreFunction::kIdentity;
    case fb::ClassifierFunction::Softmax: break;
  }
  return ScoreFunction::kSoftmax;
}

Status Classifier::logits(const TokenBatch& batch, float* out) {
  if (out == nullptr) return invalid_argument("the classifier needs an output buffer");
  HEED_RETURN_IF_ERROR(task_->session().encode(batch));
  task_->session().classify(out);
  return Status::success();
}

Status Classifier::classify_ids(const TokenBatch& batch, float* scores) {
  HEED_RETURN_IF_ERROR(logits(batch, scores));
  const size_t n = num_labels();
  for (size_t s = 0; s < batch.size; ++s) apply_score_function(function(), scores + s * n, n);
  return Status::success();
}

Status Classifier::classify_text(const std::vector<std::string>& texts, std::vector<float>* scores) {
  scores->assign(texts.size() * num_labels(), 0.0f);
  return task_->for_each_batch(texts, [&](const TokenBatch& batch, size_t first) {
    return classify_ids(batch, scores->data() + first * num_labels());
  });
}

}  // namespace heed
