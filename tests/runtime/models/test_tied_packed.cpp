// An int8 embedding table tied to the output projection is stored in the 16x4 packed layout by
// the converter (converter/pack.cpp: the vocabulary projection then runs gemm_i8_packed): the
// table it picks, embedding rows gathered from the packed layout against the row-major ones, and
// whole sessions (tied, tied and shared) that must give the same bits in both layouts.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "loader/model_index.h"
#include "models/step_model_factory.h"
#include "layers/embeddings.h"
#include "pack.h"
#include "session_helpers.h"
#include "tiny_model.h"

namespace heed::test {
namespace {

// d_model 20 (not a multiple of 16 bytes), vocabularies 19 and 23 (not multiples of 16 rows).
TinyOptions tied_int8(bool shared) {
  TinyOptions o;
  o.d_model = 20;
  o.num_heads = 4;
  o.ffn_dim = 24;
  o.tied_output = true;
  o.shared_embeddings = shared;
  o.quantize = true;  // int8, one scale per row
  return o;
}

LoadedModel with_layout(const TinyOptions& o, convert::WeightLayout layout) {
  convert::NeutralModel m = make_tiny_model(o);
  REQUIRE(convert::pack_model(&m, layout, nullptr, nullptr).is_ok());
  return load_model(m);
}

TEST_CASE("the converter packs the embedding table the output projection reuses, and only that one") {
  convert::NeutralModel untied = make_tiny_model([] {
    TinyOptions o = tied_int8(false);
    o.tied_output = false;
    return o;
  }());
  CHECK(convert::tied_output_table(untied).empty());
  convert::NeutralModel tied = make_tiny_model(tied_int8(false));
  CHECK(convert::tied_output_table(tied) == "decoder.embeddings");
  REQUIRE(convert::pack_model(&tied, convert::WeightLayout::kAuto, nullptr, nullptr).is_ok());
  CHECK(tied.find("decoder.embeddings")->layout == fb::Layout::Packed16x4);
  CHECK(tied.find("decoder.embeddings.row_sums") != nullptr);
  CHECK(tied.find("encoder.embeddings")->layout == fb::Layout::RowMajor);
  REQUIRE(convert::pack_model(&untied, convert::WeightLayout::kAuto, nullptr, nullptr).is_ok());
  CHECK(untied.find("decoder.embeddings")->layout == fb::Layout::RowMajor);
  // Shared and stored once under the encoder's name: the runtime reuses that one.
  convert::NeutralModel shared = make_tiny_model(tied_int8(true));
  shared.find("decoder.embeddings")->name = "encoder.embeddings";
  CHECK(convert::tied_output_table(shared) == "encoder.embeddings");
}

TEST_CASE("embedding rows gathered from the packed layout equal the row-major ones, bit for bit") {
  const LoadedModel row_major = with_layout(tied_int8(false), convert::WeightLayout::kRowMajor);
  const LoadedModel packed = with_layout(tied_int8(false), convert::WeightLayout::kAuto);
  REQUIRE(find_tensor(*packed.model, "decoder.embeddings")->layout == fb::Layout::Packed16x4);
  REQUIRE(find_tensor(*row_major.model, "decoder.embeddings")->layout == fb::Layout::RowMajor);
  const size_t rows = 19, dim = 20;
  layers::Embeddings a, b;
  REQUIRE(a.load(*row_major.model, "decoder.embeddings", rows, dim).is_ok());
  REQUIRE(b.load(*packed.model, "decoder.embeddings", rows, dim).is_ok());
  for (size_t id = 0; id < rows; ++id) {
    for (bool accumulate : {false, true}) {
      INFO("row " << id << " accumulate " << accumulate);
      std::vector<float> ga(dim, 0.25f), gb(dim, 0.25f);
      a.gather(id, 1.7f, accumulate, ga.data());
      b.gather(id, 1.7f, accumulate, gb.data());
      CHECK(std::memcmp(ga.data(), gb.data(), dim * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("sessions on a tied int8 model give the same bits with the table packed or row-major") {
  for (bool shared : {false, true}) {
    INFO("shared embeddings " << shared);
    const LoadedModel row_major = with_layout(tied_int8(shared), convert::WeightLayout::kRowMajor);
    const LoadedModel packed = with_layout(tied_int8(shared), convert::WeightLayout::kAuto);
    REQUIRE(find_tensor(*packed.model, "decoder.embeddings")->layout == fb::Layout::Packed16x4);
    const StepModelLimits limits{2, 1, 8, 6};
    auto sa = make_session(*row_major.model, limits);
    auto sb = make_session(*packed.model, limits);
    const std::vector<std::vector<int32_t>> sources = {{3, 4, 5, 6, 7}, {18, 2}};
    const std::vector<std::vector<int32_t>> targets = {{1, 5, 9, 17, 2}, {1, 0, 18, 3, 4}};
    const auto ra = run_prefixes(*sa, sources, targets);
    const auto rb = run_prefixes(*sb, sources, targets);
    REQUIRE(ra.size() == rb.size());
    for (size_t r = 0; r < ra.size(); ++r) {
      REQUIRE(ra[r].size() == rb[r].size());
      CHECK(std::memcmp(ra[r].data(), rb[r].data(), ra[r].size() * sizeof(float)) == 0);
    }
  }
}

}  // namespace
}  // namespace heed::test
