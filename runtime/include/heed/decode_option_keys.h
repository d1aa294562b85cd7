// Decoding options by name, for the front ends that read them as text (command-line flags) or as
// numbers (JSON fields, Python keyword arguments): each option's name, field and range live here
// once. The names are CTranslate2's translate_batch arguments (docs/decoding.md).
//
// Each key's own range is checked when it is set (a whole number where a count is meant, NaN and
// infinity refused, the range named in the message). Rules that tie options together or to a
// session (n_best <= beam_size, beam_size <= max_beam, sampling only with beam 1, ...) are
// check_decode_options' (heed/decoding.h), which applies the same per-key ranges too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "heed/decoding.h"
#include "heed/status.h"

namespace heed {

// Sets `key` of *options from text: a whole number for counts and the seed (digits only), a
// decimal number for the others, true/false (or 1/0) for flags. Errors name the key, the value
// and the accepted range; an unknown key is an error naming it.
Status set_decode_option(DecodeOptions* options, std::string_view key, std::string_view value);

// Sets `key` from a number (flags: 0 or 1; counts: a whole number), as JSON and Python give them.
Status set_decode_option(DecodeOptions* options, std::string_view key, double value);

// An option's value: `whole` for counts, the seed and flags (0 or 1), `real` for the others.
enum class DecodeOptionType { kWhole, kReal, kFlag };
struct DecodeOptionValue {
  DecodeOptionType type = DecodeOptionType::kWhole;
  uint64_t whole = 0;
  double real = 0;
};

// Reads `key` of `options` (an unknown key is an error naming it), for front ends that expose the
// options as attributes (the Python package's argument objects).
Status get_decode_option(const DecodeOptions& options, std::string_view key, DecodeOptionValue* value);

// The keys, in a fixed order: decode_option_key(i) for i < num_decode_option_keys().
size_t num_decode_option_keys();
std::string_view decode_option_key(size_t index);

// Checks every key's own range on options set directly (the C API's struct fields): the first
// value out of range, as the setters report it. check_decode_options() calls it.
Status check_decode_option_ranges(const DecodeOptions& options);

}  // namespace heed
