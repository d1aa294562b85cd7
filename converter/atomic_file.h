// Output files written so that nothing the user had is lost or half-written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert {

// Writes `bytes` to `path`:
// - a regular file (or a new one): atomically, through a temporary file ".NAME.tmp-XXXXXX" beside
//   it, fsync, then rename. On any failure the temporary file is removed and `path` (if it existed)
//   is left untouched; SIGINT, SIGTERM and SIGHUP during the write remove it too (SIGKILL cannot be
//   caught: the next write to the same path removes such leftovers of its own naming, unless a
//   write under way holds them; temporary_file.h).
// - a symlink (or a chain of them, also one ending at a name that does not exist yet): followed;
//   the file it leads to is written atomically in that file's own folder and every link stays.
// - a character device (/dev/null, /dev/stdout): written through, without rename, as cp does.
// - anything else that exists (a folder, a FIFO, a socket, a block device): refused with one line.
Status write_file_atomically(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace heed::convert
