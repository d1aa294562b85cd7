// Reading an Argos Translate package (a zip file) safely, with Debian's minizip.
//
// A package comes from the network, so the archive is treated as hostile: every entry name is
// checked before anything is extracted (no absolute paths, no "..", no drive letters or
// backslashes: "zip slip"), encrypted and symbolic-link entries are refused, the bytes actually
// inflated are counted against per-entry and total caps (a "zip bomb" stops at the cap, whatever
// its headers declare) and must equal the declared size, and every entry's CRC-32 is checked.
// Files are only ever written into a private temporary folder the caller owns (TempDir), under
// names heed chooses, never created through a path taken from the archive.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/status.h"

namespace heed::convert::argos {

// Caps for one package. The defaults hold every published Argos model (the largest are a few
// hundred MB) with room to spare; tests lower them.
struct PackageLimits {
  uint64_t max_entries = 10000;                         // entries in the archive
  uint64_t max_entry_bytes = uint64_t{4} << 30;         // inflated bytes of one extracted entry
  uint64_t max_total_bytes = uint64_t{8} << 30;         // inflated bytes of everything extracted
  uint64_t max_in_memory_bytes = uint64_t{64} << 20;    // metadata.json, sentencepiece.model
};

// A fresh folder under $TMPDIR (else /tmp), mode 0700, removed with the files in it (one level:
// extraction never makes subfolders) when the object goes away, on success and on every error.
class TempDir {
 public:
  static Status create(const char* prefix, std::unique_ptr<TempDir>* out);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// One file entry of the archive (folders are left out), as its central directory describes it.
struct ZipEntry {
  std::string name;
  uint64_t size = 0;   // declared uncompressed size
  uint64_t index = 0;  // position in the archive, for reading
};

class ZipArchive {
 public:
  // Opens `path` and checks the whole directory: entry count, every name (see above), duplicate
  // names, encryption and symbolic links. Messages name `path`.
  static Status open(const std::string& path, const PackageLimits& limits, std::unique_ptr<ZipArchive>* out);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  const std::vector<ZipEntry>& entries() const { return entries_; }
  const ZipEntry* find(const std::string& name) const;

  // The entry's bytes into memory (at most limits.max_in_memory_bytes).
  Status read(const ZipEntry& entry, std::string* bytes);
  // The entry's bytes into a new file `path` (which must not exist), counted against the
  // per-entry and total caps.
  Status extract(const ZipEntry& entry, const std::string& path);

 private:
  struct Impl;
  explicit ZipArchive(std::unique_ptr<Impl> impl);
  Status inflate(const ZipEntry& entry, uint64_t cap, const char* cap_name, int fd, std::string* bytes);

  std::unique_ptr<Impl> impl_;
  std::vector<ZipEntry> entries_;
};

// Why `name` (an entry name from an archive) is unsafe to use as a relative path, or "" when it is
// safe: empty, absolute ("/x", "\x", "C:x"), a backslash, an empty, "." or ".." component.
std::string unsafe_entry_name(const std::string& name);

}  // namespace heed::convert::argos
