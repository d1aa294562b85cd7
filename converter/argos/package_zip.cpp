#include "argos/package_zip.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unzip.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

namespace heed::convert::argos {
namespace {

constexpr uint16_t kEncryptedFlag = 1;   // general purpose bit 0
constexpr uint32_t kMaxNameBytes = 4096; // longer entry names are refused, not truncated

std::string quoted(const std::string& name) { return "'" + name + "'"; }

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

std::string unsafe_entry_name(const std::string& name) {
  if (name.empty()) return "an empty name";
  if (name.find('\0') != std::string::npos) return "a NUL byte in the name";
  if (name[0] == '/') return "an absolute path";
  if (name.find('\\') != std::string::npos) return "a backslash (a Windows path separator)";
  if (name.size() >= 2 && name[1] == ':') return "a drive letter";
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string part = name.substr(start, end - start);
    const bool last = end == name.size();
    if (part == "..") return "a '..' component (it would write outside the folder)";
    if (part == ".") return "a '.' component";
    if (part.empty() && !(last && start > 0)) return "an empty path component";  // a trailing '/' is a folder
    start = end + 1;
  }
  return "";
}

// ---- TempDir ---------------------------------------------------------------------------------

Status TempDir::create(const char* prefix, std::unique_ptr<TempDir>* out) {
  const char* tmp = std::getenv("TMPDIR");
  std::string base = tmp && *tmp ? tmp : "/tmp";
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string templ = base + "/" + prefix + "XXXXXX";
  std::vector<char> buffer(templ.begin(), templ.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data())) {
    return io_error("cannot create a temporary folder in " + base + ": " + std::strerror(errno));
  }
  out->reset(new TempDir(buffer.data()));
  return Status::success();
}

TempDir::~TempDir() {
  if (DIR* dir = ::opendir(path_.c_str())) {
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    for (const auto& name : names) ::unlink((path_ + "/" + name).c_str());
  }
  ::rmdir(path_.c_str());
}

// ---- ZipArchive ------------------------------------------------------------------------------

struct ZipArchive::Impl {
  std::string path;
  PackageLimits limits;
  unzFile zip = nullptr;
  std::vector<unz64_file_pos> positions;  // by ZipEntry::index
  uint64_t extracted = 0;                 // inflated bytes written by extract()

  ~Impl() {
    if (zip) unzClose(zip);
  }
};

ZipArchive::ZipArchive(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ZipArchive::~ZipArchive() = default;

Status ZipArchive::open(const std::string& path, const PackageLimits& limits, std::unique_ptr<ZipArchive>* out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return io_error("cannot open '" + path + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return invalid_argument("'" + path + "' is not a file (an Argos package is one .argosmodel zip file)");
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->limits = limits;
  impl->zip = unzOpen64(path.c_str());
  if (!impl->zip) {
    return invalid_file("'" + path + "' is not a zip archive (an Argos package is a zip file), or it is truncated");
  }
  unz_global_info64 global{};
  if (unzGetGlobalInfo64(impl->zip, &global) != UNZ_OK) return invalid_file(path + ": unreadable zip directory");
  if (global.number_entry > limits.max_entries) {
    return invalid_file(path + ": " + std::to_string(global.number_entry) + " entries, more than the limit of " +
                        std::to_string(limits.max_entries));
  }
  std::vector<ZipEntry> entries;
  std::set<std::string> names;
  uint64_t seen = 0;
  for (int rc = unzGoToFirstFile(impl->zip); rc != UNZ_END_OF_LIST_OF_FILE; rc = unzGoToNextFile(impl->zip)) {
    if (rc != UNZ_OK) return invalid_file(path + ": corrupt zip directory (entry " + std::to_string(seen) + ")");
    if (++seen > limits.max_entries) {
      return invalid_file(path + ": more entries than the limit of " + std::to_string(limits.max_entries));
    }
    unz_file_info64 info{};
    if (unzGetCurrentFileInfo64(impl->zip, &info, nullptr, 0, nullptr, 0, nullptr, 0) != UNZ_OK) {
      return invalid_file(path + ": corrupt zip directory (entry " + std::to_string(seen - 1) + ")");
    }
    if (info.size_filename > kMaxNameBytes) {
      return invalid_file(path + ": an entry name of " + std::to_string(info.size_filename) + " bytes");
    }
    std::string name(info.size_filename, '\0');
    if (unzGetCurrentFileInfo64(impl->zip, &info, name.data(), static_cast<uLong>(name.size()), nullptr, 0, nullptr,
                                0) != UNZ_OK) {
      return invalid_file(path + ": corrupt zip directory (entry " + std::to_string(seen - 1) + ")");
    }
    const std::string why = unsafe_entry_name(name);
    if (!why.empty()) return invalid_file(path + ": unsafe entry name " + quoted(name) + ": " + why);
    if (!names.insert(name).second) return invalid_file(path + ": the entry " + quoted(name) + " appears twice");
    if (info.flag & kEncryptedFlag) return unsupported_model(path + ": the entry " + quoted(name) + " is encrypted");
    const uint32_t unix_mode = static_cast<uint32_t>(info.external_fa >> 16);
    if ((unix_mode & S_IFMT) == S_IFLNK) {
      return invalid_file(path + ": the entry " + quoted(name) + " is a symbolic link");
    }
    if (name.back() == '/') continue;  // a folder
    unz64_file_pos pos{};
    if (unzGetFilePos64(impl->zip, &pos) != UNZ_OK) return invalid_file(path + ": corrupt zip directory");
    entries.push_back(ZipEntry{name, info.uncompressed_size, impl->positions.size()});
    impl->positions.push_back(pos);
  }
  out->reset(new ZipArchive(std::move(impl)));
  (*out)->entries_ = std::move(entries);
  return Status::success();
}

const ZipEntry* ZipArchive::find(const std::string& name) const {
  for (const auto& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

Status ZipArchive::inflate(const ZipEntry& entry, uint64_t cap, const char* cap_name, int fd, std::string* bytes) {
  const std::string where = impl_->path + ": " + quoted(entry.name);
  if (entry.size > cap) {
    return invalid_file(where + " declares " + std::to_string(entry.size) + " bytes, more than the " + cap_name +
                        " of " + std::to_string(cap));
  }
  unz64_file_pos pos = impl_->positions.at(entry.index);
  if (unzGoToFilePos64(impl_->zip, &pos) != UNZ_OK) return invalid_file(where + ": cannot seek to the entry");
  if (unzOpenCurrentFile(impl_->zip) != UNZ_OK) {
    return invalid_file(where + ": cannot open the entry (corrupt, truncated or an unsupported compression method)");
  }
  std::vector<char> buffer(1 << 16);
  uint64_t total = 0;
  Status status;
  for (;;) {
    const int n = unzReadCurrentFile(impl_->zip, buffer.data(), static_cast<unsigned>(buffer.size()));
    if (n < 0) {
      status = invalid_file(where + ": corrupt or truncated data (minizip error " + std::to_string(n) + ")");
      break;
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    // The declared size bounds what is accepted: an entry that inflates to more is refused at once,
    // before a "zip bomb" fills the disk or memory.
    if (total > entry.size) {
      status = invalid_file(where + " inflates to more than the " + std::to_string(entry.size) + " bytes it declares");
      break;
    }
    if (fd >= 0 && !write_all(fd, buffer.data(), static_cast<size_t>(n))) {
      status = io_error(where + ": cannot write the extracted file: " + std::strerror(errno));
      break;
    }
    if (bytes) bytes->append(buffer.data(), static_cast<size_t>(n));
  }
  const int close_rc = unzCloseCurrentFile(impl_->zip);
  if (!status.is_ok()) return status;
  if (total != entry.size) {
    return invalid_file(where + " inflates to " + std::to_string(total) + " bytes but declares " +
                        std::to_string(entry.size));
  }
  if (close_rc == UNZ_CRCERROR) return invalid_file(where + ": CRC-32 mismatch (the package is damaged)");
  if (close_rc != UNZ_OK) return invalid_file(where + ": corrupt data (minizip error " + std::to_string(close_rc) + ")");
  return Status::success();
}

Status ZipArchive::read(const ZipEntry& entry, std::string* bytes) {
  bytes->clear();
  return inflate(entry, impl_->limits.max_in_memory_bytes, "limit for files read into memory", -1, bytes);
}

Status ZipArchive::extract(const ZipEntry& entry, const std::string& path) {
  const uint64_t left = impl_->limits.max_total_bytes - std::min(impl_->extracted, impl_->limits.max_total_bytes);
  const bool total_binds = left < impl_->limits.max_entry_bytes;
  const uint64_t cap = total_binds ? left : impl_->limits.max_entry_bytes;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return io_error("cannot create '" + path + "': " + std::strerror(errno));
  Status status = inflate(entry, cap, total_binds ? "package's total size limit" : "per-file size limit", fd, nullptr);
  if (::close(fd) != 0 && status.is_ok()) status = io_error("cannot write '" + path + "': " + std::strerror(errno));
  if (!status.is_ok()) return status;
  impl_->extracted += entry.size;
  return Status::success();
}

}  // namespace heed::convert::argos
