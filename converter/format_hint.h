// What `heed convert` says when it cannot tell a source's format: what it found at the path (the
// model_type of a Hugging Face config.json, the file a known family lacks, a plain file) and what
// heed reads instead, so that the user learns why and what to do in one line.
#pragma once

#include <string>

namespace heed::convert {

// One sentence about `path`, for the error of an undetected format (without the --from advice).
std::string undetected_format_hint(const std::string& path);

}  // namespace heed::convert
