// File-system helpers every converter reader needs to look at a source folder and read its files.
// One copy here so that the readers' checks and error messages stay the same across formats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert {

// True when `path` exists and is a regular file (symlinks followed).
bool is_file(const std::string& path);

// True when `path` exists and is a directory (symlinks followed).
bool is_directory(const std::string& path);

// The last path component, ignoring trailing slashes: "a/b/" -> "b", "/" -> "/". Names the source
// in the file's producer record.
std::string base_name(std::string path);

// The whole file; "cannot open '<path>'" / "cannot read '<path>'" on failure. An empty file is
// returned as empty (for formats whose own parser gives a better message for it).
Status read_bytes(const std::string& path, std::vector<uint8_t>* out);

// Like read_bytes, but an empty file is "<path>: empty file".
Status read_nonempty_bytes(const std::string& path, std::vector<uint8_t>* out);

}  // namespace heed::convert
