#include "corrupt_files.h"

#include <cstring>
#include <stdexcept>

#include "sample_model.h"

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

using AddCase = std::function<void(std::string, std::vector<uint8_t>, StatusCode, std::string)>;

// The sample vocabulary map (keys [1] [1 2] [3], candidates {4 5} {6} {7 8}, always {2}), broken
// one rule at a time.
void add_vocab_map_cases(const std::vector<uint8_t>& valid, const AddCase& add) {
  auto broken = [&](const std::function<void(fb::VocabMapT&)>& edit) {
    return repack(valid, [&](fb::ModelT& m) {
      m.vocab_map = std::make_unique<fb::VocabMapT>(sample_vocab_map());
      edit(*m.vocab_map);
    });
  };
  const StatusCode c = StatusCode::kInvalidFile;
  add("vmap_not_encoder_decoder",
      repack(valid,
             [](fb::ModelT& m) {
               fb::TransformerDecoderOnlyT lm;
               lm.decoder = std::make_unique<fb::TransformerStackT>(*config(m).decoder);
               m.config.Set(std::move(lm));
               m.vocab_map = std::make_unique<fb::VocabMapT>(sample_vocab_map());
             }),
      c, "vocab_map: a vocabulary shortlist needs a TransformerEncoderDecoder model, not TransformerDecoderOnly");
  add("vmap_max_ngram_zero", broken([](fb::VocabMapT& v) { v.max_ngram = 0; }), c, "vocab_map: max_ngram is 0");
  add("vmap_no_offsets", broken([](fb::VocabMapT& v) { v.key_offsets.clear(); }), c, "vocab_map: key_offsets is empty");
  add("vmap_offsets_from_one", broken([](fb::VocabMapT& v) { v.key_offsets[0] = 1; }), c,
      "vocab_map: key_offsets[0] is 1, not 0");
  add("vmap_offsets_decreasing", broken([](fb::VocabMapT& v) {
        v.target_offsets = {0, 3, 2, 5};
      }),
      c, "vocab_map: target_offsets[2] 2 is below target_offsets[1] 3");
  add("vmap_offsets_past_ids", broken([](fb::VocabMapT& v) { v.key_offsets.back() = 0xFFFFFFFFu; }), c,
      "vocab_map: key_offsets ends at 4294967295 but key_ids holds 4 ids");
  add("vmap_offsets_short", broken([](fb::VocabMapT& v) { v.target_ids.push_back(9); }), c,
      "vocab_map: target_offsets ends at 5 but target_ids holds 6 ids");
  add("vmap_offset_counts", broken([](fb::VocabMapT& v) {
        v.target_offsets = {0, 5};
      }),
      c, "vocab_map: key_offsets has 4 entries but target_offsets 2");
  add("vmap_key_empty", broken([](fb::VocabMapT& v) {
        v.key_offsets = {0, 1, 1, 4};
      }),
      c, "vocab_map: key 1 has 0 ids (keys have 1..2, max_ngram)");
  add("vmap_key_too_long", broken([](fb::VocabMapT& v) { v.max_ngram = 1; }), c,
      "vocab_map: key 1 has 2 ids (keys have 1..1, max_ngram)");
  add("vmap_key_id_outside", broken([](fb::VocabMapT& v) { v.key_ids[3] = 10; }), c,
      "vocab_map: key_ids[3] 10 is outside the source vocabulary (10 tokens)");
  add("vmap_key_id_negative", broken([](fb::VocabMapT& v) { v.key_ids[0] = -1; }), c,
      "vocab_map: key_ids[0] -1 is outside the source vocabulary");
  add("vmap_keys_unsorted", broken([](fb::VocabMapT& v) {
        v.key_ids = {3, 1, 2, 1};
      }),
      c, "vocab_map: key 1 does not sort after key 0");
  add("vmap_keys_duplicate", broken([](fb::VocabMapT& v) {
        v.key_ids = {1, 1, 3};
        v.key_offsets = {0, 1, 2, 3};
      }),
      c, "vocab_map: key 1 does not sort after key 0");
  add("vmap_prefix_after", broken([](fb::VocabMapT& v) {
        v.key_ids = {1, 2, 1, 3};
        v.key_offsets = {0, 2, 3, 4};
      }),
      c, "vocab_map: key 1 does not sort after key 0");
  add("vmap_target_outside", broken([](fb::VocabMapT& v) { v.target_ids[4] = 10; }), c,
      "vocab_map: target_ids[4] 10 is outside the target vocabulary (10 tokens)");
  add("vmap_always_outside", broken([](fb::VocabMapT& v) {
        v.always = {2, -5};
      }),
      c, "vocab_map: always[1] -5 is outside the target vocabulary");
}

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
  add_vocab_map_cases(valid, add);
  return out;
}

}  // namespace heed::test
