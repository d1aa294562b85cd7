// The decoding arguments translate_batch and generate_batch share (CTranslate2's names and
// defaults), and their binding: each API's argument struct adds its own on top.
#pragma once

#include <nanobind/nanobind.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace heed::python {

struct SamplingArgs {
  float sampling_temperature = 1, sampling_topp = 1, repetition_penalty = 1;
  size_t sampling_topk = 1, no_repeat_ngram_size = 0;
  uint64_t seed = 0;
  bool disable_unk = false;
  std::vector<std::vector<std::string>> suppress_sequences;
  std::vector<std::string> end_token;
};

// Exposes SamplingArgs' fields on `cls`, the binding of a struct derived from it.
template <typename Class>
Class& bind_sampling_args(Class& cls) {
  return cls.def_rw("sampling_temperature", &SamplingArgs::sampling_temperature)
      .def_rw("sampling_topk", &SamplingArgs::sampling_topk)
      .def_rw("sampling_topp", &SamplingArgs::sampling_topp)
      .def_rw("repetition_penalty", &SamplingArgs::repetition_penalty)
      .def_rw("no_repeat_ngram_size", &SamplingArgs::no_repeat_ngram_size)
      .def_rw("seed", &SamplingArgs::seed)
      .def_rw("disable_unk", &SamplingArgs::disable_unk)
      .def_rw("suppress_sequences", &SamplingArgs::suppress_sequences)
      .def_rw("end_token", &SamplingArgs::end_token);
}

}  // namespace heed::python
