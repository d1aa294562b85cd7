// create_step_model / plan_step_model_arena: reads the model family from the file and builds its
// session.
#include "models/step_model_factory.h"

#include <string>

#include "loader/model_index.h"
#include "models/decoder_only.h"
#include "models/encoder_decoder.h"
#include "models/rnn_seq2seq.h"

namespace heed {

namespace {

Status unsupported_family(const Model& model) {
  const char* name = fb::EnumNameModelConfig(model_family(model));
  return unsupported_model(std::string("model family '") + (name && *name ? name : "unknown") +
                           "' has no StepModel implementation in this runtime");
}

// With `arena` null only plans into `report`; otherwise creates the session into *out.
template <typename Family>
Status create_family(const Model& model, const StepModelLimits& limits, const ArenaOptions* arena,
                     ArenaReport* report, std::unique_ptr<StepModel>* out, threading::PoolOptions threads) {
  std::unique_ptr<Family> session;
  HEED_RETURN_IF_ERROR(Family::create(model, limits, arena, report, &session, threads));
  if (out != nullptr) *out = std::move(session);
  return Status::success();
}

Status create_any(const Model& model, const StepModelLimits& limits, const ArenaOptions* arena, ArenaReport* report,
                  std::unique_ptr<StepModel>* out, threading::PoolOptions threads) {
  switch (model_family(model)) {
    case fb::ModelConfig::TransformerEncoderDecoder:
      return create_family<models::EncoderDecoder>(model, limits, arena, report, out, threads);
    case fb::ModelConfig::TransformerDecoderOnly:
      return create_family<models::DecoderOnly>(model, limits, arena, report, out, threads);
    case fb::ModelConfig::RnnSeq2Seq:
      return create_family<rnn::RnnSeq2Seq>(model, limits, arena, report, out, threads);
    default:
      return unsupported_family(model);
  }
}

}  // namespace

Status create_step_model(const Model& model, const StepModelLimits& limits, ArenaOptions arena,
                         std::unique_ptr<StepModel>* out, threading::PoolOptions threads) {
  return create_any(model, limits, &arena, nullptr, out, threads);
}

Status plan_step_model_arena(const Model& model, const StepModelLimits& limits, ArenaReport* out,
                             threading::PoolOptions threads) {
  return create_any(model, limits, nullptr, out, nullptr, threads);
}

}  // namespace heed
