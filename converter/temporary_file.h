// The temporary file an atomic write fills before renaming it over its output: ".NAME.tmp-XXXXXX"
// in the output's folder (atomic_file.h decides which folder and name).
//
// While it exists its writer holds a lock on it (flock) and SIGINT, SIGTERM or SIGHUP remove it
// before the process ends. A file of that naming that nobody holds a lock on is what a write ended
// by SIGKILL or a crash left, and the next write to the same output removes it; a concurrent
// write's temporary file is locked and kept. One write at a time per process: the signal handler
// knows one path.
#pragma once

#include <string>

#include "heed/status.h"

namespace heed::convert {

class TemporaryFile {
 public:
  TemporaryFile() = default;
  // Removes what the writer holds unless kept: the file, its descriptors, the signal handlers.
  ~TemporaryFile();
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  // Removes unlocked leftovers for `base` in `dir`, then creates the temporary file (mode 0600,
  // locked, removed on the catchable signals). `output` names the output in messages.
  Status create(const std::string& dir, const std::string& base, const std::string& output);

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Closes the descriptor being written (its error reported; the lock stays held).
  Status close(const std::string& output);
  // Renames the file to `target`; from then on there is nothing to remove.
  Status rename_to(const std::string& target, const std::string& output);

 private:
  int fd_ = -1;       // the descriptor the bytes are written through
  int lock_fd_ = -1;  // a duplicate holding the flock until the file is renamed or removed
  bool armed_ = false;
  std::string path_;
};

// The leftovers' removal alone (also done by create()): ".BASE.tmp-" and 6 characters, unlocked.
void remove_stale_temporaries(const std::string& dir, const std::string& base);

}  // namespace heed::convert
