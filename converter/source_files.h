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

// Size caps of the files a source holds: text (configuration, vocabularies, merges, tokenizer
// models) and weights.
inline constexpr uint64_t kMaxTextFileBytes = uint64_t{256} << 20;   // 256 MiB
inline constexpr uint64_t kMaxWeightFileBytes = uint64_t{64} << 30;  // 64 GiB

// The whole file, read by the one checked reader every converter input goes through: it must be a
// regular file (a FIFO, a device such as /dev/zero or a directory is refused at once, without
// blocking: it is opened non-blocking and checked before anything is read) of at most `max_bytes`,
// and every failure is one line naming the path. An empty file is returned as empty (for formats
// whose own parser gives a better message for it).
Status read_bytes(const std::string& path, std::vector<uint8_t>* out, uint64_t max_bytes = kMaxTextFileBytes);
// The same file as text.
Status read_text(const std::string& path, std::string* out, uint64_t max_bytes = kMaxTextFileBytes);

// Like read_bytes, but an empty file is "<path>: empty file".
Status read_nonempty_bytes(const std::string& path, std::vector<uint8_t>* out);

}  // namespace heed::convert
