// Error messages of the CTranslate2 reader quote names from the files (variables, aliases, the spec,
// tokens of config.json). A corrupt or hostile file can put newlines, terminal escapes or 64 KiB into
// a name; one_line() makes any such message the one printable line heed promises.
#pragma once

#include <string>
#include <string_view>

#include "heed/status.h"

namespace heed::convert::ct2 {

// Control bytes (< 0x20 and 0x7f) become \xNN; beyond kMaxMessageBytes the text is cut and "..."
// appended. Printable text and UTF-8 pass unchanged.
inline constexpr size_t kMaxMessageBytes = 1000;
std::string one_line(std::string_view text);
// The same status with its message made one line (unchanged when ok).
Status one_line(const Status& status);

}  // namespace heed::convert::ct2
