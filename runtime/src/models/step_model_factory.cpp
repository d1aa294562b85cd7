// create_step_model: reads the model family from the file and builds its StepModel.
#include <string>

#include "loader/model_index.h"
#include "decoder_only/transformer_decoder_only.h"
#include "models/step_model_factory.h"
#include "rnn/rnn_seq2seq.h"  // RNN seq2seq family
#include "transformer/transformer_encoder_decoder.h"

namespace heed {

namespace {

Status unsupported_family(const Model& model) {
  const char* name = fb::EnumNameModelConfig(model_family(model));
  return unsupported_model(std::string("model family '") + (name && *name ? name : "unknown") +
                           "' has no StepModel implementation in this runtime");
}

}  // namespace

Status create_step_model(const Model& model, const StepModelLimits& limits, ArenaOptions arena,
                         std::unique_ptr<StepModel>* out, size_t threads) {
  switch (model_family(model)) {
    case fb::ModelConfig::TransformerEncoderDecoder: {
      std::unique_ptr<transformer::TransformerEncoderDecoder> m;
      HEED_RETURN_IF_ERROR(transformer::TransformerEncoderDecoder::create(model, limits, &arena, nullptr, &m, threads));
      *out = std::move(m);
      return Status::ok();
    }
    case fb::ModelConfig::TransformerDecoderOnly: {
      std::unique_ptr<decoder_only::TransformerDecoderOnly> m;
      HEED_RETURN_IF_ERROR(decoder_only::TransformerDecoderOnly::create(model, limits, &arena, nullptr, &m, threads));
      *out = std::move(m);
      return Status::ok();
    }
    case fb::ModelConfig::RnnSeq2Seq:  // RNN seq2seq family (runtime/src/rnn/)
      return rnn::create_rnn_step_model(model, limits, arena, out, threads);
    default:
      return unsupported_family(model);
  }
}

Status plan_step_model_arena(const Model& model, const StepModelLimits& limits, ArenaReport* out,
                             size_t threads) {
  switch (model_family(model)) {
    case fb::ModelConfig::TransformerEncoderDecoder:
      return transformer::TransformerEncoderDecoder::create(model, limits, nullptr, out, nullptr, threads);
    case fb::ModelConfig::TransformerDecoderOnly:
      return decoder_only::TransformerDecoderOnly::create(model, limits, nullptr, out, nullptr, threads);
    case fb::ModelConfig::RnnSeq2Seq:  // RNN seq2seq family (runtime/src/rnn/)
      return rnn::plan_rnn_step_model_arena(model, limits, out, threads);
    default:
      return unsupported_family(model);
  }
}

}  // namespace heed
