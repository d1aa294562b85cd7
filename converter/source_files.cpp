#include "source_files.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>

namespace heed::convert {

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status read_bytes(const std::string& path, std::vector<uint8_t>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return io_error("cannot open '" + path + "'");
  out->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return io_error("cannot read '" + path + "'");
  return Status::ok();
}

Status read_nonempty_bytes(const std::string& path, std::vector<uint8_t>* out) {
  HEED_RETURN_IF_ERROR(read_bytes(path, out));
  if (out->empty()) return invalid_file(path + ": empty file");
  return Status::ok();
}

}  // namespace heed::convert
