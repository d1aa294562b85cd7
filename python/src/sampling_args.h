// The decoding arguments translate_batch and generate_batch share, and their binding: the
// runtime's DecodeOptions, read and written by CTranslate2's names through heed's one table of
// decoding options (heed/decode_option_keys.h), so each name's field and range are the runtime's
// (a value out of range raises ValueError naming the argument and the range). The controls given
// as tokens stay tokens until a vocabulary maps them. Each API's argument struct adds its own.
#pragma once

#include <nanobind/nanobind.h>

#include <string>
#include <vector>

#include "errors.h"
#include "heed/decode_option_keys.h"
#include "heed/decoding.h"

namespace heed::python {

struct SamplingArgs {
  DecodeOptions decode;
  std::vector<std::vector<std::string>> suppress_sequences;
  std::vector<std::string> end_token;
};

// The option `key` as a Python int, float or bool, as its type is.
inline nanobind::object get_decode_arg(const SamplingArgs& a, const char* key) {
  DecodeOptionValue v;
  check(get_decode_option(a.decode, key, &v));
  if (v.type == DecodeOptionType::kReal) return nanobind::float_(v.real);
  if (v.type == DecodeOptionType::kFlag) return nanobind::bool_(v.whole != 0);
  return nanobind::int_(v.whole);
}

// Sets `key` from a Python bool, int (as its digits: exact for any size) or float.
inline void set_decode_arg(SamplingArgs& a, const char* key, nanobind::handle value) {
  if (nanobind::isinstance<nanobind::bool_>(value)) {
    check(set_decode_option(&a.decode, key, std::string_view(nanobind::cast<bool>(value) ? "true" : "false")));
  } else if (nanobind::isinstance<nanobind::int_>(value)) {
    const nanobind::str digits(value);
    check(set_decode_option(&a.decode, key, std::string_view(digits.c_str())));
  } else {
    check(set_decode_option(&a.decode, key, nanobind::cast<double>(value)));
  }
}

// Exposes every decoding option as an attribute of `cls`, the binding of a struct derived from
// SamplingArgs, plus the controls given as tokens.
template <typename Class>
Class& bind_sampling_args(Class& cls) {
  using Args = typename Class::Type;
  for (size_t i = 0; i < num_decode_option_keys(); ++i) {
    const char* key = decode_option_key(i).data();  // the table's string literals
    cls.def_prop_rw(
        key, [key](const Args& a) { return get_decode_arg(a, key); },
        [key](Args& a, nanobind::handle value) { set_decode_arg(a, key, value); });
  }
  return cls.def_rw("suppress_sequences", &SamplingArgs::suppress_sequences)
      .def_rw("end_token", &SamplingArgs::end_token);
}

}  // namespace heed::python
