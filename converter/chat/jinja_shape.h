// The shape of a Jinja chat template, for recognizing it (heed runs no Jinja): the template split
// into text, {{ expressions }}, {% statements %} and comments, whitespace control applied as
// transformers' chat environment has it (trim_blocks, lstrip_blocks, the '-' markers), then written
// in one canonical spelling: no whitespace outside string literals but one space between two
// names (`not x`), literals single-quoted with their escapes resolved, adjacent literals joined,
// text as literal expressions, comments dropped, `message.role` written `message['role']`. Two
// templates of one shape that differ only in spacing, quoting or these spellings get the same
// string; anything else stays different.
#pragma once

#include <string>
#include <string_view>

namespace heed::convert::chat {

// The canonical spelling of `jinja`; false when the template is not well formed (an unclosed tag
// or string).
bool jinja_shape(std::string_view jinja, std::string* shape);

}  // namespace heed::convert::chat
