#include "convert.h"

#include "heed_writer.h"
#include "outliers.h"
#include "heed_format/quantization.h"
#include "heed_format/tensor_names.h"
#include "loader/model_index.h"
#include "sentencepiece_model.h"
#include "source_files.h"

namespace heed::convert {

Status check_convert_options(const ConvertOptions& o) {
  HEED_RETURN_IF_ERROR(check_quantize_options(o.quantize));
  if (o.layout == WeightLayout::kPacked16x4 && (o.quantize.type != WeightType::kInt8 || o.quantize.group_size != 0)) {
    return invalid_argument("--layout packed16x4 needs int8 weights with one scale per row (--quantize int8, no "
                            "--group-size)");
  }
  if (o.activation_block && *o.activation_block != 0) {
    if (*o.activation_block % 16 != 0 || *o.activation_block > 65536) {
      return invalid_argument("--activation-block " + std::to_string(*o.activation_block) +
                              " is not a multiple of 16 up to 65536 (0: one scale per row)");
    }
    if (o.quantize.type != WeightType::kInt8 || o.quantize.group_size != 0 || o.layout == WeightLayout::kRowMajor) {
      return invalid_argument("--activation-block needs packed int8 weights with one scale per row (--quantize int8, "
                              "no --group-size, --layout auto or packed16x4)");
    }
  }
  if (o.outlier_channels && *o.outlier_channels != 0) {
    if (*o.outlier_channels > format::kMaxOutlierChannels) {
      return invalid_argument("--outlier-channels " + std::to_string(*o.outlier_channels) + " is above " +
                              std::to_string(format::kMaxOutlierChannels));
    }
    if (o.quantize.type != WeightType::kInt8 || o.quantize.group_size != 0 || o.layout == WeightLayout::kRowMajor) {
      return invalid_argument("--outlier-channels needs packed int8 weights with one scale per row (--quantize int8, "
                              "no --group-size, --layout auto or packed16x4)");
    }
  }
  if (!o.calibration.empty() && o.outlier_channels && *o.outlier_channels == 0) {
    return invalid_argument("--calibration chooses outlier channels: it needs --outlier-channels above 0");
  }
  if (o.source_spm.empty() != o.target_spm.empty()) {
    return invalid_argument("--source-spm and --target-spm go together (a translation model needs both)");
  }
  return Status::success();
}

namespace {

size_t count_parameters(const NeutralModel& model) {
  size_t parameters = 0;
  for (const auto& t : model.tensors) {
    if (t.name.size() < 7 || t.name.compare(t.name.size() - 7, 7, ".scales") != 0) parameters += t.num_elements();
  }
  return parameters;
}

std::function<void(size_t, size_t)> stage_progress(const ConvertOptions& o, ConvertStage stage) {
  if (!o.progress) return {};
  return [&o, stage](size_t done, size_t total) { o.progress(stage, done, total); };
}

// A decoder-only language model whose linear weights are float in the source (int8 ones are kept
// as they are, with their per-row scales).
bool float_decoder_lm(const NeutralModel& model) {
  if (model.config.AsTransformerDecoderOnly() == nullptr) return false;
  for (const NeutralTensor& t : model.tensors) {
    if (names::is_linear_weight(t.name) && t.dtype == fb::DType::F32) return true;
  }
  return false;
}

// The activation block asked for, or the model's default: encoder-only models (sentence encoders)
// and decoder-only LMs lose most to per-row activations; translation models keep per-row (their
// greedy outputs hold, and the ARM decode step is counted so) (docs/quantization.md).
uint32_t activation_block(const NeutralModel& model, const ConvertOptions& o) {
  if (o.activation_block) return *o.activation_block;
  if (model.config.AsTransformerEncoderOnly() != nullptr) return kEncoderActivationBlock;
  return float_decoder_lm(model) ? kDecoderActivationBlock : 0;
}

// Outlier channels asked for, or the model's default: encoders and decoder LMs in activation blocks.
uint32_t outlier_channels(const NeutralModel& model, const ConvertOptions& o, uint32_t block) {
  if (o.outlier_channels) return *o.outlier_channels;
  if (block == 0) return 0;
  if (model.config.AsTransformerEncoderOnly() != nullptr) return kEncoderOutlierChannels;
  return float_decoder_lm(model) ? kDecoderOutlierChannels : 0;
}

// The calibration lines and the float model's outputs on them (for the self-check).
struct Calibration {
  std::vector<std::string> lines;
  CalibrationOutput reference;
};

// Splits the outlier channels off the float model (before quantization), calibrating on the
// options' file or the built-in lines.
Status split_outliers(NeutralModel* model, const ConvertOptions& o, uint32_t count, Calibration* calibration,
                      ConvertSummary* summary) {
  if (count == 0) return Status::success();
  if (!can_calibrate(*model)) {
    return invalid_argument("--outlier-channels calibrates by running text through the model: it needs an encoder "
                            "(hf-bert) or a decoder-only language model");
  }
  if (o.calibration.empty()) calibration->lines = builtin_calibration_lines();
  else HEED_RETURN_IF_ERROR(read_calibration_lines(o.calibration, &calibration->lines));
  HEED_RETURN_IF_ERROR(
      split_outlier_channels(model, count, calibration->lines, &summary->outlier_layers, &calibration->reference));
  summary->outlier_channels = summary->outlier_layers > 0 ? count : 0;
  return Status::success();
}

}  // namespace

Status quantize_and_pack(NeutralModel* model, const ConvertOptions& options, ConvertSummary* summary) {
  HEED_RETURN_IF_ERROR(check_convert_options(options));
  if (!options.vmap.empty()) HEED_RETURN_IF_ERROR(add_vocab_map(options.vmap, model, &summary->vmap));
  summary->parameters = count_parameters(*model);
  const uint32_t block = options.layout == WeightLayout::kRowMajor || options.quantize.type != WeightType::kInt8 ||
                                 options.quantize.group_size != 0
                             ? 0
                             : activation_block(*model, options);
  // Activation blocks come with the linear weights quantized in the same blocks of K (as ggml's
  // q8_0 x q8_0): per-row weight scales alone keep real encoders below 0.999 (docs/quantization.md).
  const bool packs = options.layout != WeightLayout::kRowMajor && options.quantize.type == WeightType::kInt8 &&
                     options.quantize.group_size == 0;
  Calibration calibration;
  HEED_RETURN_IF_ERROR(
      split_outliers(model, options, packs ? outlier_channels(*model, options, block) : 0, &calibration, summary));
  QuantizeOptions quantize = options.quantize;
  quantize.linear_group_size = block;
  quantize.tied_table = tied_output_table(*model);
  HEED_RETURN_IF_ERROR(
      quantize_model(model, quantize, options.report, stage_progress(options, ConvertStage::kQuantizing)));
  set_activation_blocks(model, block);
  HEED_RETURN_IF_ERROR(pack_model(model, options.layout, &summary->packed, options.report,
                                  stage_progress(options, ConvertStage::kPacking)));
  summary->activation_block = block;
  summary->tensors = model->tensors.size();
  if (!calibration.reference.values.empty()) {  // the converted model against the float one, on the same lines
    SelfCheck check;
    HEED_RETURN_IF_ERROR(self_check(*model, calibration.lines, calibration.reference, &check));
    summary->check_lines = check.lines;
    summary->check_encoder = check.encoder;
    summary->check_lowest_cosine = check.lowest_cosine;
    summary->check_mean_cosine = check.mean_cosine;
    summary->check_nll_float = check.nll_float;
    summary->check_nll_converted = check.nll_converted;
    summary->check_continuation_tokens = check.encoder ? 0 : kSelfCheckTokens;
    summary->check_same_continuations = check.same_continuations;
    summary->check_matched_prefix = check.matched_prefix;
  }
  return Status::success();
}

void take_vmap_beside(const SourceFormat& format, const std::string& source, ConvertOptions* options) {
  if (options->vmap.empty() && std::string(format.name) == "ct2" && is_file(source + "/vmap.txt")) {
    options->vmap = source + "/vmap.txt";
  }
}

Status convert_file(const SourceFormat& format, const std::string& source, const std::string& output,
                    const ConvertOptions& given, ConvertSummary* summary) {
  HEED_RETURN_IF_ERROR(check_convert_options(given));
  ConvertOptions options = given;
  take_vmap_beside(format, source, &options);
  NeutralModel model;
  HEED_RETURN_IF_ERROR(format.read(source, &model));
  if (!options.source_spm.empty()) {
    if (model.tokenizer.kind == fb::TokenizerKind::SentencePiece) {  // the folder's own: replaced
      model.tokenizer.kind = fb::TokenizerKind::Whitespace;
    }
    HEED_RETURN_IF_ERROR(embed_sentencepiece_models(options.source_spm, options.target_spm, &model));
  }
  HEED_RETURN_IF_ERROR(quantize_and_pack(&model, options, summary));
  return write_heed(model, output);
}

}  // namespace heed::convert
