// layers::beam_reorder_rows / beam_reorder_moves (runtime/src/layers/beam_reorder.*), which every
// StepModel's reorder uses on its caches: against a plain copy of the whole old cache, for every
// parent assignment of small beams, with strides wider than the live part.
#include <cstdint>
#include <vector>

#include <catch2/catch.hpp>

#include "layers/beam_reorder.h"

namespace heed::test {
namespace {

TEST_CASE("beam_reorder_rows makes row r the old row parents[r], for every parent assignment") {
  const size_t batch = 2, beam = 3, rows = batch * beam, stride = 7, used = 5;
  std::vector<int32_t> parents(rows);
  size_t moving = 0;
  // Every assignment of parents within a sentence (3^3), the same in both sentences.
  for (size_t code = 0; code < 27; ++code) {
    for (size_t r = 0; r < rows; ++r) {
      const size_t sentence = r / beam, digit = (code / (r % beam == 0 ? 1 : r % beam == 1 ? 3 : 9)) % 3;
      parents[r] = static_cast<int32_t>(sentence * beam + digit);
    }
    std::vector<float> cache(rows * stride), scratch(rows * used, -1.0f);
    for (size_t i = 0; i < cache.size(); ++i) cache[i] = static_cast<float>(i);
    const std::vector<float> old = cache;
    bool identity = true;
    for (size_t r = 0; r < rows; ++r) identity = identity && parents[r] == static_cast<int32_t>(r);
    CHECK(layers::beam_reorder_moves(parents.data(), rows, beam) == !identity);
    moving += !identity;
    layers::beam_reorder_rows(cache.data(), stride, used, parents.data(), rows, scratch.data());
    for (size_t r = 0; r < rows; ++r) {
      INFO("assignment " << code << " row " << r << " parent " << parents[r]);
      for (size_t i = 0; i < stride; ++i) {
        // The live part comes from the parent; the rest of the row is untouched.
        const float want = i < used ? old[static_cast<size_t>(parents[r]) * stride + i] : old[r * stride + i];
        REQUIRE(cache[r * stride + i] == want);
      }
    }
  }
  CHECK(moving == 26);
}

TEST_CASE("beam_reorder_moves refuses parents outside the rows or the sentence") {
  const std::vector<int32_t> identity = {0, 1, 2, 3};
  CHECK_FALSE(layers::beam_reorder_moves(identity.data(), 4, 2));
  CHECK_FALSE(layers::beam_reorder_moves(nullptr, 4, 2));
  const std::vector<int32_t> other_sentence = {0, 2, 2, 3};  // row 1 (sentence 0) from row 2 (sentence 1)
  CHECK_FALSE(layers::beam_reorder_moves(other_sentence.data(), 4, 2));
  const std::vector<int32_t> out_of_range = {0, 0, 4, 3};
  CHECK_FALSE(layers::beam_reorder_moves(out_of_range.data(), 4, 2));
  const std::vector<int32_t> negative = {-1, 0, 2, 3};
  CHECK_FALSE(layers::beam_reorder_moves(negative.data(), 4, 2));
  const std::vector<int32_t> moves = {0, 0, 3, 3};
  CHECK(layers::beam_reorder_moves(moves.data(), 4, 2));
}

}  // namespace
}  // namespace heed::test
