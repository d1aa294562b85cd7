// The tensor table: every entry is checked against the weight segment before any view is made, so
// a view never points outside the file, and quantized tensors always come with usable scales.
#include <cstdint>
#include <limits>

#include "loader/model_index.h"
#include "heed_format/quantization.h"
#include "loader/validate.h"

namespace heed::loader {

namespace {

// Number of scales a quantized tensor needs, or 0 when its parameters make no sense.
uint64_t expected_scales(const TensorView& t) {
  return format::scale_count(t.quantization, t.rows(), t.row_size(), t.group_size);
}

// Bytes of an [n, k] int8 matrix in the 16x4 layout (kernels::packed_i8_16x4_bytes), computed in
// 64 bits so a hostile shape cannot wrap size_t on 32-bit devices; 0 when even that overflows
// (n and k rounded up can reach 2^32 each).
uint64_t packed_16x4_bytes(uint64_t n, uint64_t k) {
  const uint64_t rows = (n + 15) / 16 * 16, cols = (k + 3) / 4 * 4;
  if (rows > std::numeric_limits<uint64_t>::max() / cols) return 0;
  return rows * cols;
}

// The packed layout exists only for what gemm_i8_packed reads: an int8 [N, K] matrix with one
// scale per row (or one for the whole tensor), stored as ceil(N/16)*16 x ceil(K/4)*4 bytes.
Status check_packed(const TensorView& v, uint64_t size, const std::string& at) {
  if (v.dtype != fb::DType::I8) {
    return invalid_file(at + "layout Packed16x4 needs int8 values, not " + dtype_name(v.dtype));
  }
  if (v.shape.size() != 2) {
    return invalid_file(at + "layout Packed16x4 needs a 2-D shape, got " + std::to_string(v.shape.size()) +
                        " dimensions");
  }
  if (!format::packable_quantization(v.quantization, v.group_size, v.activation_block)) {
    return invalid_file(at + "layout Packed16x4 needs per-row or per-tensor scales (or per-group ones of its activation "
                        "block's size), not " + fb::EnumNameQuantization(v.quantization));
  }
  const uint64_t want = packed_16x4_bytes(v.shape[0], v.shape[1]);
  if (want == 0) return invalid_file(at + "shape is too large");
  if (size != want) {
    return invalid_file(at + "size " + std::to_string(size) + " bytes does not match its packed 16x4 shape [" +
                        std::to_string(v.shape[0]) + ", " + std::to_string(v.shape[1]) + "] (" +
                        std::to_string(want) + " bytes)");
  }
  return Status::success();
}

// A packed tensor's companion: an I32 [rows] tensor named by Tensor.row_sums, 4-byte aligned in
// memory (every tensor is 64-byte aligned when the base is; checked so a view is never misaligned).
Status resolve_row_sums(const fb::Tensor& entry, const std::vector<TensorView>& views,
                        const std::unordered_map<std::string_view, size_t>& by_name, const std::string& at,
                        TensorView* v) {
  const flatbuffers::String* name = entry.row_sums();
  const bool named = name && name->size() > 0;
  if (v->layout != fb::Layout::Packed16x4) {
    if (named) return invalid_file(at + "names a row sums tensor but its layout is not Packed16x4");
    return Status::success();
  }
  if (!named) return invalid_file(at + "has layout Packed16x4 but names no row sums tensor");
  const std::string_view rname(name->c_str(), name->size());
  auto found = by_name.find(rname);
  if (found == by_name.end()) return invalid_file(at + "row sums tensor '" + std::string(rname) + "' is missing");
  const TensorView& r = views[found->second];
  if (r.dtype != fb::DType::I32 || r.quantization != fb::Quantization::None) {
    return invalid_file(at + "row sums tensor '" + std::string(rname) + "' is " + dtype_name(r.dtype) +
                        (r.quantization != fb::Quantization::None ? " quantized" : "") + ", not plain I32");
  }
  if (r.shape.size() != 1 || r.shape[0] != v->rows()) {
    std::string shape;
    for (uint32_t d : r.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    return invalid_file(at + "row sums tensor '" + std::string(rname) + "' has shape [" + shape + "], expected [" +
                        std::to_string(v->rows()) + "]");
  }
  if (reinterpret_cast<uintptr_t>(r.data) % alignof(int32_t) != 0 ||
      reinterpret_cast<uintptr_t>(v->data) % kTensorAlignment != 0) {
    return invalid_file(at + "packed weights or their row sums are not aligned in memory");
  }
  v->row_sums = r.as<int32_t>();
  return Status::success();
}

// Outlier channels (Tensor.outlier_channels) of packed int8 weights: at most kMaxOutlierChannels
// increasing indices into K (at most kMaxOutlierInputs), and their F32 [channels, N] weights.
Status check_outlier_channels(const flatbuffers::Vector<uint32_t>& channels, const TensorView& v, const std::string& at) {
  if (v.layout != fb::Layout::Packed16x4) return invalid_file(at + "has outlier channels but is not packed int8");
  if (channels.size() == 0 || channels.size() > format::kMaxOutlierChannels || v.row_size() > format::kMaxOutlierInputs) {
    return invalid_file(at + "has " + std::to_string(channels.size()) + " outlier channels over " +
                        std::to_string(v.row_size()) + " inputs (1 to " + std::to_string(format::kMaxOutlierChannels) +
                        " over at most " + std::to_string(format::kMaxOutlierInputs) + ")");
  }
  for (flatbuffers::uoffset_t j = 0; j < channels.size(); ++j) {
    if (channels.Get(j) >= v.row_size() || (j > 0 && channels.Get(j) <= channels.Get(j - 1))) {
      return invalid_file(at + "outlier channels are not increasing indices below " + std::to_string(v.row_size()));
    }
  }
  return Status::success();
}

Status resolve_outliers(const fb::Tensor& entry, const std::vector<TensorView>& views,
                        const std::unordered_map<std::string_view, size_t>& by_name, const std::string& at,
                        TensorView* v) {
  const auto* channels = entry.outlier_channels();
  const flatbuffers::String* name = entry.outliers();
  const bool named = name && name->size() > 0, listed = channels && channels->size() > 0;
  if (!named && !listed) return Status::success();
  if (named != listed) return invalid_file(at + "needs both outlier channels and their weights tensor, or neither");
  HEED_RETURN_IF_ERROR(check_outlier_channels(*channels, *v, at));
  const std::string_view oname(name->c_str(), name->size());
  auto found = by_name.find(oname);
  if (found == by_name.end()) return invalid_file(at + "outlier weights tensor '" + std::string(oname) + "' is missing");
  const TensorView& o = views[found->second];
  if (o.dtype != fb::DType::F32 || o.layout != fb::Layout::RowMajor || o.shape.size() != 2 ||
      o.shape[0] != channels->size() || o.shape[1] != v->rows()) {
    return invalid_file(at + "outlier weights tensor '" + std::string(oname) + "' is not F32 [" +
                        std::to_string(channels->size()) + ", " + std::to_string(v->rows()) + "]");
  }
  v->outlier_channels = channels->data();
  v->num_outlier_channels = channels->size();
  v->outlier_weights = o.as<float>();
  return Status::success();
}

// The entry's name, type and shape as a view (no data yet); refuses unknown enums and shapes
// whose size does not fit.
Status read_entry(const fb::Tensor& t, std::string_view name, const std::string& at, TensorView* v) {
  v->name = name;
  v->dtype = t.dtype();
  v->quantization = t.quantization();
  v->layout = t.layout();
  v->group_size = t.group_size();
  v->activation_block = t.activation_block();
  if (!known_enum(v->dtype)) return invalid_file(at + "unknown dtype " + std::to_string(int(v->dtype)));
  if (!known_enum(v->quantization)) return invalid_file(at + "unknown quantization " + std::to_string(int(v->quantization)));
  if (!known_enum(v->layout)) return invalid_file(at + "unknown layout " + std::to_string(int(v->layout)));
  const auto& shape = *t.shape();
  if (shape.size() == 0) return invalid_file(at + "has an empty shape");
  uint64_t elements = 1;
  for (uint32_t dim : shape) {
    if (dim == 0) return invalid_file(at + "has a zero dimension");
    // Checked before multiplying so the product never wraps (and fits size_t on 32-bit devices).
    if (elements > std::numeric_limits<size_t>::max() / dim) return invalid_file(at + "shape is too large");
    elements *= dim;
    v->shape.push_back(dim);
  }
  if (elements > std::numeric_limits<uint64_t>::max() / dtype_size(v->dtype)) return invalid_file(at + "shape is too large");
  return Status::success();
}

// The entry's bytes: the size its shape and layout need, aligned, inside the weight segment.
Status check_extent(const TensorView& v, uint64_t offset, uint64_t size, uint64_t weights_size, const std::string& at) {
  const uint64_t elements = v.num_elements(), element_size = dtype_size(v.dtype);
  if (v.layout == fb::Layout::Packed16x4) {
    HEED_RETURN_IF_ERROR(check_packed(v, size, at));
  } else if (size != elements * element_size) {
    return invalid_file(at + "size " + std::to_string(size) + " bytes does not match its shape (" +
                        std::to_string(elements) + " " + dtype_name(v.dtype) + " values = " +
                        std::to_string(elements * element_size) + " bytes)");
  }
  if (offset % kTensorAlignment != 0) {
    return invalid_file(at + "offset " + std::to_string(offset) + " is not a multiple of " +
                        std::to_string(kTensorAlignment));
  }
  if (offset > weights_size) {
    return invalid_file(at + "offset " + std::to_string(offset) + " is past the end of the weight segment (" +
                        std::to_string(weights_size) + " bytes)");
  }
  if (size > weights_size - offset) {
    return invalid_file(at + "bytes " + std::to_string(offset) + ".." + std::to_string(offset + size) +
                        " run past the end of the weight segment (" + std::to_string(weights_size) + " bytes)");
  }
  return Status::success();
}

// int8 values need scales, float values may not declare any.
Status check_quantization(const TensorView& v, const std::string& at) {
  const bool integer = v.dtype == fb::DType::I8;
  if (integer && v.quantization == fb::Quantization::None) {
    return invalid_file(at + "is int8 but has no quantization scales");
  }
  if (!integer && v.quantization != fb::Quantization::None) {
    return invalid_file(at + "is " + dtype_name(v.dtype) + " but declares quantization " +
                        fb::EnumNameQuantization(v.quantization));
  }
  if (v.quantization == fb::Quantization::PerGroup && v.group_size == 0) {
    return invalid_file(at + "per-group quantization with group size 0");
  }
  if (v.activation_block != 0 && (v.layout != fb::Layout::Packed16x4 || v.activation_block % 16 != 0)) {
    return invalid_file(at + "activation block " + std::to_string(v.activation_block) +
                        " (only packed int8 weights have one, a multiple of 16)");
  }
  return Status::success();
}

// A quantized tensor's scales: an F32 tensor with as many values as its quantization needs.
Status resolve_scales(const fb::Tensor& entry, const std::vector<TensorView>& views,
                      const std::unordered_map<std::string_view, size_t>& by_name, const std::string& at,
                      TensorView* v) {
  const flatbuffers::String* scales_name = entry.scales();
  if (!scales_name || scales_name->size() == 0) return invalid_file(at + "is quantized but names no scales tensor");
  const std::string_view sname(scales_name->c_str(), scales_name->size());
  auto found = by_name.find(sname);
  if (found == by_name.end()) return invalid_file(at + "scales tensor '" + std::string(sname) + "' is missing");
  const TensorView& s = views[found->second];
  if (s.dtype != fb::DType::F32) {
    return invalid_file(at + "scales tensor '" + std::string(sname) + "' is " + dtype_name(s.dtype) + ", not F32");
  }
  const uint64_t want = expected_scales(*v);
  if (s.num_elements() != want) {
    return invalid_file(at + "scales tensor '" + std::string(sname) + "' has " + std::to_string(s.num_elements()) +
                        " values but " + fb::EnumNameQuantization(v->quantization) + " quantization needs " +
                        std::to_string(want));
  }
  v->scales = s.as<float>();
  v->num_scales = s.num_elements();
  return Status::success();
}

// Names must be non-empty, unique and sorted (the table is searched by name).
Status check_name_order(std::string_view name, std::string_view previous, size_t i, const std::string& where,
                        const std::string& at) {
  if (name.empty()) return invalid_file(where + ": tensor #" + std::to_string(i) + " has an empty name");
  if (i > 0 && name == previous) return invalid_file(at + "appears twice in the tensor table");
  if (i > 0 && name < previous) {
    return invalid_file(at + "tensor table is not sorted by name (comes after '" + std::string(previous) + "')");
  }
  return Status::success();
}

}  // namespace

Status validate_tensors(const fb::Model& index, const uint8_t* weights, const std::string& where,
                        std::vector<TensorView>* views,
                        std::unordered_map<std::string_view, size_t>* by_name) {
  const auto& tensors = *index.tensors();
  views->clear();
  by_name->clear();
  views->reserve(tensors.size());
  by_name->reserve(tensors.size());
  std::string_view previous;
  for (flatbuffers::uoffset_t i = 0; i < tensors.size(); ++i) {
    const fb::Tensor* t = tensors.Get(i);
    const std::string_view name(t->name()->c_str(), t->name()->size());
    const std::string at = where + ": tensor '" + std::string(name) + "': ";
    HEED_RETURN_IF_ERROR(check_name_order(name, previous, i, where, at));
    previous = name;
    TensorView v;
    HEED_RETURN_IF_ERROR(read_entry(*t, name, at, &v));
    HEED_RETURN_IF_ERROR(check_extent(v, t->offset(), t->size(), index.weights_size(), at));
    HEED_RETURN_IF_ERROR(check_quantization(v, at));
    v.data = weights + t->offset();
    v.size_bytes = t->size();
    (*by_name)[v.name] = views->size();
    views->push_back(std::move(v));
  }
  // Scales, row sums and outlier weights are resolved once every tensor is known, since they may
  // sort after their user.
  for (flatbuffers::uoffset_t i = 0; i < tensors.size(); ++i) {
    TensorView& v = (*views)[i];
    const std::string at = where + ": tensor '" + std::string(v.name) + "': ";
    HEED_RETURN_IF_ERROR(resolve_row_sums(*tensors.Get(i), *views, *by_name, at, &v));
    HEED_RETURN_IF_ERROR(resolve_outliers(*tensors.Get(i), *views, *by_name, at, &v));
    if (v.quantization != fb::Quantization::None) {
      HEED_RETURN_IF_ERROR(resolve_scales(*tensors.Get(i), *views, *by_name, at, &v));
    }
  }
  return Status::success();
}

}  // namespace heed::loader
