#include "ct2/model_bin.h"
#include "source_files.h"



#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

namespace heed::convert::ct2 {

const char* dtype_name(DType dtype) {
  switch (dtype) {
    case DType::F32: return "float32";
    case DType::I8: return "int8";
    case DType::I16: return "int16";
    case DType::I32: return "int32";
    case DType::F16: return "float16";
    case DType::BF16: return "bfloat16";
  }
  return "unknown";
}

size_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::F32: case DType::I32: return 4;
    case DType::I16: case DType::F16: case DType::BF16: return 2;
    case DType::I8: return 1;
  }
  return 0;
}

size_t Variable::num_elements() const {
  size_t n = 1;
  for (uint32_t d : shape) n *= d;
  return n;
}

namespace {

// A bounds-checked cursor over the file. Each read names what it reads, so a truncated file
// reports e.g. "truncated at byte 1234 reading the dims of variable 'decoder/...'".
class Cursor {
 public:
  Cursor(const std::vector<uint8_t>& bytes, const std::string& where) : bytes_(bytes), where_(where) {}

  size_t position() const { return pos_; }
  size_t remaining() const { return bytes_.size() - pos_; }

  Status truncated(const std::string& what) const {
    return invalid_file(where_ + " is truncated or corrupt: " + std::to_string(remaining()) +
                        " bytes left at offset " + std::to_string(pos_) + " while reading " + what);
  }
  Status corrupt(const std::string& message) const {
    return invalid_file(where_ + " is corrupt at offset " + std::to_string(pos_) + ": " + message);
  }

  template <typename T>
  Status read(T* value, const std::string& what) {
    if (remaining() < sizeof(T)) return truncated(what);
    std::memcpy(value, bytes_.data() + pos_, sizeof(T));  // the file is little-endian, like our targets
    pos_ += sizeof(T);
    return Status::success();
  }

  Status read_string(std::string* value, const std::string& what) {
    uint16_t length = 0;
    HEED_RETURN_IF_ERROR(read(&length, what + " (length)"));
    if (length == 0) return corrupt(what + " has length 0 (a string ends with a NUL)");
    if (remaining() < length) return truncated(what + " (" + std::to_string(length) + " bytes)");
    const char* begin = reinterpret_cast<const char*>(bytes_.data() + pos_);
    if (begin[length - 1] != '\0') return corrupt(what + " does not end with a NUL byte");
    value->assign(begin, strnlen(begin, length));
    pos_ += length;
    return Status::success();
  }

  Status skip(size_t n, const std::string& what) {
    if (remaining() < n) return truncated(what + " (" + std::to_string(n) + " bytes)");
    pos_ += n;
    return Status::success();
  }

 private:
  const std::vector<uint8_t>& bytes_;
  const std::string& where_;
  size_t pos_ = 0;
};

Status dtype_from_item_size(uint8_t item_size, DType* dtype) {
  // Before binary version 4 only the element width was stored; CTranslate2 read it this way.
  switch (item_size) {
    case 4: *dtype = DType::F32; return Status::success();
    case 2: *dtype = DType::I16; return Status::success();
    case 1: *dtype = DType::I8; return Status::success();
    default: return invalid_argument("unknown element width " + std::to_string(item_size));
  }
}

}  // namespace

namespace {

// The dtype and byte count of a variable record: a dtype id (binary version 4 on), else an
// element width and count.
Status read_storage(Cursor& in, uint32_t version, const std::string& what, Variable* v, uint64_t* num_bytes) {
  if (version >= 4) {
    uint8_t id = 0;
    HEED_RETURN_IF_ERROR(in.read(&id, "the dtype of " + what));
    if (id > static_cast<uint8_t>(DType::BF16)) return in.corrupt(what + " has unknown dtype id " + std::to_string(id));
    v->dtype = static_cast<DType>(id);
    uint32_t n = 0;
    HEED_RETURN_IF_ERROR(in.read(&n, "the byte count of " + what));
    *num_bytes = n;
    return Status::success();
  }
  uint8_t item_size = 0;
  uint32_t n = 0;
  HEED_RETURN_IF_ERROR(in.read(&item_size, "the element width of " + what));
  Status s = dtype_from_item_size(item_size, &v->dtype);
  if (!s) return in.corrupt(what + ": " + s.message());
  HEED_RETURN_IF_ERROR(in.read(&n, "the element count of " + what));
  *num_bytes = uint64_t{n} * item_size;
  return Status::success();
}

// Variable record #i: name, shape, storage, then its values (skipped: they stay in the bytes).
Status read_variable(Cursor& in, uint32_t version, uint32_t i, Variable* v) {
  const std::string nth = "variable #" + std::to_string(i);
  HEED_RETURN_IF_ERROR(in.read_string(&v->name, "the name of " + nth));
  // Empty names never occur in CTranslate2's files, and lookups use "" for "no such alias".
  if (v->name.empty()) return in.corrupt(nth + " has an empty name");
  const std::string what = "variable '" + v->name + "'";
  uint8_t rank = 0;
  HEED_RETURN_IF_ERROR(in.read(&rank, "the rank of " + what));
  v->shape.resize(rank);
  for (uint8_t d = 0; d < rank; ++d) HEED_RETURN_IF_ERROR(in.read(&v->shape[d], "the dims of " + what));
  uint64_t num_bytes = 0;
  HEED_RETURN_IF_ERROR(read_storage(in, version, what, v, &num_bytes));
  // The shape must describe exactly the stored bytes (overflow-checked: dims come from the file).
  uint64_t expected = dtype_size(v->dtype);
  bool overflow = false;
  for (uint32_t d : v->shape) overflow = overflow || __builtin_mul_overflow(expected, uint64_t{d}, &expected);
  if (overflow) expected = std::numeric_limits<uint64_t>::max();
  if (expected != num_bytes) {
    std::string dims;
    for (size_t d = 0; d < v->shape.size(); ++d) dims += (d ? "," : "") + std::to_string(v->shape[d]);
    return in.corrupt(what + " has " + std::to_string(num_bytes) + " bytes of " + dtype_name(v->dtype) +
                      " for shape [" + dims + "]");
  }
  v->offset = in.position();
  v->size = static_cast<size_t>(num_bytes);
  return in.skip(v->size, "the values of " + what);
}

Status read_aliases(Cursor& in, std::vector<std::pair<std::string, std::string>>* aliases) {
  uint32_t num_aliases = 0;
  HEED_RETURN_IF_ERROR(in.read(&num_aliases, "the number of aliases"));
  if (num_aliases > in.remaining() / 6) {
    return in.corrupt("it declares " + std::to_string(num_aliases) + " aliases in " + std::to_string(in.remaining()) +
                      " bytes");
  }
  for (uint32_t i = 0; i < num_aliases; ++i) {
    std::string alias, target;
    HEED_RETURN_IF_ERROR(in.read_string(&alias, "alias #" + std::to_string(i)));
    HEED_RETURN_IF_ERROR(in.read_string(&target, "the target of alias '" + alias + "'"));
    if (alias.empty() || target.empty()) return in.corrupt("alias #" + std::to_string(i) + " has an empty name or target");
    aliases->emplace_back(std::move(alias), std::move(target));
  }
  return Status::success();
}

}  // namespace

Status ModelBin::parse(std::vector<uint8_t> bytes, const std::string& where, ModelBin* out) {
  ModelBin m;
  m.bytes_ = std::move(bytes);
  Cursor in(m.bytes_, where);
  HEED_RETURN_IF_ERROR(in.read(&m.binary_version_, "the binary version"));
  if (m.binary_version_ == 0 || m.binary_version_ > kMaxBinaryVersion) {
    return Status(StatusCode::kUnsupportedVersion, where + " has binary version " + std::to_string(m.binary_version_) +
                                                       "; heed reads CTranslate2 binary versions 1 to " +
                                                       std::to_string(kMaxBinaryVersion));
  }
  if (m.binary_version_ >= 2) {
    HEED_RETURN_IF_ERROR(in.read_string(&m.spec_name_, "the spec name"));
    HEED_RETURN_IF_ERROR(in.read(&m.spec_revision_, "the spec revision"));
  }
  uint32_t count = 0;
  HEED_RETURN_IF_ERROR(in.read(&count, "the number of variables"));
  // The smallest variable record is 2 + 1 (name) + 1 (rank) + 1 + 4 bytes: reject absurd counts
  // before reserving memory for them.
  if (count > in.remaining() / 9) {
    return in.corrupt("it declares " + std::to_string(count) + " variables in " + std::to_string(in.remaining()) +
                      " bytes");
  }
  m.variables_.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    Variable v;
    HEED_RETURN_IF_ERROR(read_variable(in, m.binary_version_, i, &v));
    m.variables_.push_back(std::move(v));
  }
  if (m.binary_version_ >= 3) HEED_RETURN_IF_ERROR(read_aliases(in, &m.aliases_));
  if (in.remaining() != 0) return in.corrupt(std::to_string(in.remaining()) + " unexpected bytes after the last record");
  m.index();
  for (const auto& [alias, target] : m.aliases_) {
    if (!m.by_name_.count(target)) {
      return invalid_file(where + ": alias '" + alias + "' points to '" + target + "', which is not a variable");
    }
  }
  *out = std::move(m);
  return Status::success();
}

Status ModelBin::read(const std::string& path, ModelBin* out) {
  std::vector<uint8_t> bytes;
  HEED_RETURN_IF_ERROR(read_bytes(path, &bytes, kMaxWeightFileBytes));
  return parse(std::move(bytes), path, out);
}

void ModelBin::index() {
  by_name_.clear();
  alias_to_.clear();
  for (size_t i = 0; i < variables_.size(); ++i) by_name_[variables_[i].name] = i;
  for (const auto& [alias, target] : aliases_) alias_to_[alias] = target;
}

std::string ModelBin::alias_target(const std::string& alias) const {
  auto it = alias_to_.find(alias);
  if (it != alias_to_.end()) return it->second;
  // CTranslate2 also aliases NAME_scale when NAME is an alias.
  const std::string suffix = "_scale";
  if (alias.size() > suffix.size() && alias.compare(alias.size() - suffix.size(), suffix.size(), suffix) == 0) {
    auto base = alias_to_.find(alias.substr(0, alias.size() - suffix.size()));
    if (base != alias_to_.end()) return base->second + suffix;
  }
  return "";
}

const Variable* ModelBin::find(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it != by_name_.end()) return &variables_[it->second];
  const std::string target = alias_target(name);
  if (target.empty()) return nullptr;
  it = by_name_.find(target);
  return it == by_name_.end() ? nullptr : &variables_[it->second];
}

void ModelBin::rename(std::string (*mapping)(std::string)) {
  for (auto& v : variables_) v.name = mapping(v.name);
  for (auto& [alias, target] : aliases_) {
    alias = mapping(alias);
    target = mapping(target);
  }
  index();
}

}  // namespace heed::convert::ct2
