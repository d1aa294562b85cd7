#include "convert.h"

#include "heed_writer.h"

namespace heed::convert {

Status check_convert_options(const ConvertOptions& o) {
  HEED_RETURN_IF_ERROR(check_quantize_options(o.quantize));
  if (o.layout == WeightLayout::kPacked16x4 && (o.quantize.type != WeightType::kInt8 || o.quantize.group_size != 0)) {
    return invalid_argument("--layout packed16x4 needs int8 weights with one scale per row (--quantize int8, no "
                            "--group-size)");
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

std::function<void(size_t, size_t)> stage_progress(const ConvertOptions& o, const char* stage) {
  if (!o.progress) return {};
  return [&o, stage](size_t done, size_t total) { o.progress(stage, done, total); };
}

}  // namespace

Status quantize_and_pack(NeutralModel* model, const ConvertOptions& options, ConvertSummary* summary) {
  HEED_RETURN_IF_ERROR(check_convert_options(options));
  summary->parameters = count_parameters(*model);
  HEED_RETURN_IF_ERROR(quantize_model(model, options.quantize, options.report, stage_progress(options, "quantizing")));
  HEED_RETURN_IF_ERROR(
      pack_model(model, options.layout, &summary->packed, options.report, stage_progress(options, "packing")));
  summary->tensors = model->tensors.size();
  return Status::success();
}

Status convert_file(const SourceFormat& format, const std::string& source, const std::string& output,
                    const ConvertOptions& options, ConvertSummary* summary) {
  HEED_RETURN_IF_ERROR(check_convert_options(options));
  NeutralModel model;
  HEED_RETURN_IF_ERROR(format.read(source, &model));
  HEED_RETURN_IF_ERROR(quantize_and_pack(&model, options, summary));
  return write_heed(model, output);
}

}  // namespace heed::convert
