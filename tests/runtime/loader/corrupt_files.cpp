#include "corrupt_files.h"


#include <cstring>
#include <stdexcept>

namespace heed::test {

namespace {

uint64_t align64(uint64_t n) { return (n + 63) / 64 * 64; }

fb::TensorT& tensor(fb::ModelT& m, const std::string& name) {
  for (auto& t : m.tensors) {
    if (t->name == name) return *t;
  }
  throw std::logic_error("sample model has no tensor " + name);
}

fb::TransformerEncoderDecoderT& config(fb::ModelT& m) { return *m.config.AsTransformerEncoderDecoder(); }

const char* const kPerRow = "decoder.layers.0.ffn.in.weight";
const char* const kPerGroup = "decoder.layers.0.ffn.out.weight";
const char* const kEmbeddings = "encoder.embeddings";

}  // namespace

std::vector<uint8_t> repack(const std::vector<uint8_t>& valid, const std::function<void(fb::ModelT&)>& edit) {
  uint32_t old_size = 0;
  std::memcpy(&old_size, valid.data(), 4);
  const size_t old_segment = align64(4 + uint64_t{old_size});
  std::unique_ptr<fb::ModelT> model(fb::GetSizePrefixedModel(valid.data())->UnPack());
  edit(*model);
  flatbuffers::FlatBufferBuilder builder;
  fb::FinishSizePrefixedModelBuffer(builder, fb::CreateModel(builder, model.get()));
  const size_t segment = align64(builder.GetSize());
  std::vector<uint8_t> out(segment, 0);
  std::memcpy(out.data(), builder.GetBufferPointer(), builder.GetSize());
  out.insert(out.end(), valid.begin() + old_segment, valid.end());
  return out;
}

std::vector<CorruptFile> corrupt_files(const std::vector<uint8_t>& valid) {
  using C = StatusCode;
  std::vector<CorruptFile> out;
  auto add = [&](std::string name, std::vector<uint8_t> bytes, C code, std::string fragment) {
    out.push_back({std::move(name), std::move(bytes), code, std::move(fragment)});
  };
  auto edited = [&](const std::function<void(fb::ModelT&)>& edit) { return repack(valid, edit); };
  uint32_t index_size = 0;
  std::memcpy(&index_size, valid.data(), 4);

  add("empty", {}, C::kInvalidFile, "not a heed model file");
  add("three_bytes", {valid.begin(), valid.begin() + 3}, C::kInvalidFile, "not a heed model file");
  {
    const char text[] = "this is a text file, not a model at all\n";
    add("text_file", {text, text + sizeof text - 1}, C::kInvalidFile, "not a heed model file");
  }
  {
    auto b = valid;
    std::memcpy(b.data() + 8, "HEEX", 4);
    add("wrong_identifier", b, C::kInvalidFile, "not a heed model file");
  }
  add("index_truncated", {valid.begin(), valid.begin() + index_size / 2}, C::kInvalidFile, "truncated file");
  add("weights_truncated", {valid.begin(), valid.end() - 64}, C::kInvalidFile, "truncated file");
  {
    auto b = valid;
    const uint32_t huge = 0xFFFFFF00u;  // the root table offset, far outside the index
    std::memcpy(b.data() + 4, &huge, 4);
    add("bad_root_offset", b, C::kInvalidFile, "failed verification");
  }
  add("newer_version", edited([](fb::ModelT& m) { m.format_version = 7; }), C::kUnsupportedVersion,
      "format version 7 is newer than this heed reads (2); update heed");
  add("version_zero", edited([](fb::ModelT& m) { m.format_version = 0; }), C::kInvalidFile, "format version 0");
  add("offset_past_end", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).offset = m.weights_size; }),
      C::kInvalidFile, "tensor 'encoder.embeddings': bytes 1024..1344 run past the end of the weight segment (1024 bytes)");
  add("offset_wraps", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).offset = ~uint64_t{63}; }), C::kInvalidFile,
      "tensor 'encoder.embeddings': offset 18446744073709551552 is past the end of the weight segment");
  add("misaligned_offset", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).offset += 8; }), C::kInvalidFile,
      "tensor 'encoder.embeddings': offset");
  add("weights_size_past_end", edited([](fb::ModelT& m) { m.weights_size += 64; }), C::kInvalidFile,
      "truncated file");
  add("shape_size_mismatch", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).shape[0] = 11; }), C::kInvalidFile,
      "tensor 'encoder.embeddings': size 320 bytes does not match its shape");
  add("zero_dimension", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).shape[1] = 0; }), C::kInvalidFile,
      "zero dimension");
  add("empty_shape", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).shape.clear(); }), C::kInvalidFile,
      "empty shape");
  add("shape_overflow", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).shape = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}; }),
      C::kInvalidFile, "shape is too large");
  add("unknown_dtype", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).dtype = static_cast<fb::DType>(9); }),
      C::kInvalidFile, "unknown dtype 9");
  add("unknown_layout", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).layout = static_cast<fb::Layout>(4); }),
      C::kInvalidFile, "unknown layout 4");
  add("scale_count_mismatch", edited([](fb::ModelT& m) {
        auto& s = tensor(m, std::string(kPerRow) + ".scales");
        s.shape = {8};
        s.size = 32;
      }),
      C::kInvalidFile, "scales tensor 'decoder.layers.0.ffn.in.weight.scales' has 8 values but PerRow quantization needs 16");
  add("group_count_mismatch", edited([](fb::ModelT& m) { tensor(m, kPerGroup).group_size = 8; }), C::kInvalidFile,
      "has 32 values but PerGroup quantization needs 16");
  add("group_size_zero", edited([](fb::ModelT& m) { tensor(m, kPerGroup).group_size = 0; }), C::kInvalidFile,
      "group size 0");
  add("missing_scales", edited([](fb::ModelT& m) { tensor(m, kPerRow).scales = "nope"; }), C::kInvalidFile,
      "tensor 'decoder.layers.0.ffn.in.weight': scales tensor 'nope' is missing");
  add("scales_not_f32", edited([](fb::ModelT& m) { tensor(m, kPerRow).scales = "encoder.norm.gamma"; }),
      C::kInvalidFile, "is F16, not F32");
  add("int8_unquantized", edited([](fb::ModelT& m) { tensor(m, kPerRow).quantization = fb::Quantization::None; }),
      C::kInvalidFile, "is int8 but has no quantization scales");
  add("f32_quantized", edited([](fb::ModelT& m) { tensor(m, kEmbeddings).quantization = fb::Quantization::PerRow; }),
      C::kInvalidFile, "is F32 but declares quantization PerRow");
  add("duplicate_names", edited([](fb::ModelT& m) { m.tensors[1]->name = m.tensors[0]->name; }), C::kInvalidFile,
      "appears twice");
  add("unsorted_names", edited([](fb::ModelT& m) { std::swap(m.tensors[0], m.tensors[2]); }), C::kInvalidFile,
      "not sorted");
  add("empty_name", edited([](fb::ModelT& m) { m.tensors[0]->name.clear(); }), C::kInvalidFile, "empty name");
  add("kv_heads", edited([](fb::ModelT& m) { config(m).decoder->num_kv_heads = 3; }), C::kInvalidFile,
      "decoder: num_kv_heads 3 does not divide num_heads 2");
  add("heads_not_dividing", edited([](fb::ModelT& m) { config(m).encoder->num_heads = 3; }), C::kInvalidFile,
      "encoder: d_model 8 is not a multiple of num_heads 3");
  add("d_model_zero", edited([](fb::ModelT& m) { config(m).encoder->d_model = 0; }), C::kInvalidFile, "d_model is 0");
  add("vocab_mismatch", edited([](fb::ModelT& m) { config(m).decoder->vocab_size = 11; }), C::kInvalidFile,
      "target vocabulary has 10 tokens but the model's vocab_size is 11");
  add("special_id_outside", edited([](fb::ModelT& m) { m.tokenizer->eos_id = 10; }), C::kInvalidFile,
      "eos_id 10 is outside the vocabulary");
  add("unknown_activation", edited([](fb::ModelT& m) { config(m).encoder->activation = static_cast<fb::Activation>(200); }),
      C::kInvalidFile, "unknown activation 200");
  return out;
}

}  // namespace heed::test
