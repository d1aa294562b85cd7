// heed._heed.convert and heed._heed.inspect: the converter's one pipeline and what a .heed file
// holds, as Python values.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "bindings.h"
#include "convert.h"
#include "errors.h"
#include "formats.h"
#include "heed_writer.h"
#include "heed/model.h"
#include "heed/model_description.h"
#include "heed/tokenizer.h"

namespace nb = nanobind;

namespace heed::python {
namespace {

// The weight type a source stores its matrices in: int8 when any is int8 (CTranslate2's int8
// models), float16 when any is float16, else float32.
convert::WeightType stored_type(const convert::NeutralModel& model) {
  bool f16 = false;
  for (const convert::NeutralTensor& t : model.tensors) {
    if (!t.quantizable) continue;
    if (t.dtype == fb::DType::I8) return convert::WeightType::kInt8;
    f16 = f16 || t.dtype == fb::DType::F16;
  }
  return f16 ? convert::WeightType::kFloat16 : convert::WeightType::kFloat32;
}

// source_format "" detects the format; quantize "default" keeps the source's weight type; activation_block and
// outlier_channels < 0: the converter's defaults; calibration "": the built-in lines; vmap "": no shortlist.
nb::dict convert_model(const std::string& source, const std::string& output, const std::string& source_format,
                       const std::string& quantize, uint32_t group_size, int64_t activation_block,
                       int64_t outlier_channels, const std::string& calibration, const std::string& vmap) {
  const convert::SourceFormat* format = nullptr;
  check(source_format.empty() ? convert::detect_format(source, &format) : convert::find_format(source_format, &format));
  convert::ConvertOptions options;
  const bool keep = quantize == "default";  // CTranslate2's compute_type "default": the weights' own type
  if (!keep) check(convert::parse_weight_type(quantize, &options.quantize.type));
  options.quantize.group_size = group_size;
  if (activation_block >= 0) options.activation_block = static_cast<uint32_t>(activation_block);
  if (outlier_channels >= 0) options.outlier_channels = static_cast<uint32_t>(outlier_channels);
  options.calibration = calibration;
  options.vmap = vmap;
  convert::take_vmap_beside(*format, source, &options);
  check(convert::check_convert_options(options));
  convert::ConvertSummary summary;
  convert::NeutralModel model;
  Status s;
  {
    nb::gil_scoped_release release;
    s = format->read(source, &model);
    if (s.ok() && keep) options.quantize.type = stored_type(model);
    if (s.ok()) s = convert::quantize_and_pack(&model, options, &summary);
    if (s.ok()) s = convert::write_heed(model, output);
  }
  check(s);
  nb::dict d;
  d["format"] = format->name;
  d["tensors"] = summary.tensors;
  d["parameters"] = summary.parameters;
  d["packed"] = summary.packed;
  d["activation_block"] = summary.activation_block;
  d["outlier_channels"] = summary.outlier_channels;
  d["outlier_layers"] = summary.outlier_layers;
  if (summary.check_lines > 0) {  // the converter's self-check (models with outlier channels)
    d["check_lines"] = summary.check_lines;
    if (summary.check_encoder) {
      d["check_lowest_cosine"] = summary.check_lowest_cosine;
      d["check_mean_cosine"] = summary.check_mean_cosine;
    } else {
      d["check_nll_float"] = summary.check_nll_float;
      d["check_nll_converted"] = summary.check_nll_converted;
      d["check_continuation_tokens"] = summary.check_continuation_tokens;
      d["check_same_continuations"] = summary.check_same_continuations;
      d["check_matched_prefix"] = summary.check_matched_prefix;
    }
  }
  if (!vmap.empty()) {
    nb::dict v;
    v["keys"] = summary.vmap.keys;
    v["max_ngram"] = summary.vmap.max_ngram;
    v["candidates"] = summary.vmap.candidates;
    v["always"] = summary.vmap.always;
    v["dropped_ngrams"] = summary.vmap.dropped_ngrams;
    v["dropped_targets"] = summary.vmap.dropped_targets;
    d["vmap"] = v;
  }
  return d;
}

nb::list tensor_list(const ModelDescription& description) {
  nb::list tensors;
  for (const TensorDescription& t : description.tensors) {
    nb::dict d;
    d["name"] = t.name;
    d["dtype"] = t.dtype;
    d["quantization"] = t.quantization;
    d["group_size"] = t.group_size;
    d["layout"] = t.layout;
    d["activation_block"] = t.activation_block;
    d["outlier_channels"] = t.outlier_channels;
    nb::list shape;
    for (uint32_t dim : t.shape) shape.append(dim);
    d["shape"] = shape;
    d["bytes"] = t.bytes;
    tensors.append(d);
  }
  return tensors;
}

// The vocabulary shortlist's sizes, from the description's "vocab_map" section.
nb::dict vocab_map_sizes(const ModelDescription& description) {
  nb::dict v;
  for (const DescriptionSection& section : description.sections) {
    if (section.title != "vocab_map") continue;
    for (const DescriptionEntry& e : section.entries) {
      if (e.key != "key_ids") v[e.key.c_str()] = e.unsigned_value;
    }
  }
  return v;
}

nb::dict inspect_model(const std::string& path) {
  std::unique_ptr<Model> model;
  check(Model::open(path, LoadOptions{}, &model));
  const ModelDescription description = describe(*model);
  nb::dict d;
  d["family"] = model->family_name();
  d["format_version"] = description.format_version;
  d["file_size"] = model->file_size();
  nb::dict metadata;
  for (const auto& [key, value] : description.metadata) metadata[key.c_str()] = value;
  d["metadata"] = metadata;
  if (description.has_tokenizer) {
    nb::dict t;
    t["kind"] = tokenizer_kind_name(description.tokenizer_kind);
    t["source_vocabulary"] = description.source_vocabulary_size;
    t["target_vocabulary"] = description.target_vocabulary_size;
    d["tokenizer"] = t;
  }
  if (description.has_vocab_map) d["vocab_map"] = vocab_map_sizes(description);
  d["tensors"] = tensor_list(description);
  return d;
}

}  // namespace

void bind_convert(nb::module_& m) {
  m.def("convert", &convert_model, nb::arg("source"), nb::arg("output"), nb::arg("source_format"),
        nb::arg("quantize"), nb::arg("group_size"), nb::arg("activation_block"), nb::arg("outlier_channels"),
        nb::arg("calibration"), nb::arg("vmap"));
  m.def("inspect", &inspect_model, nb::arg("path"));
}

}  // namespace heed::python
