// Reader of CTranslate2's model.bin: every binary version CTranslate2 has written (1 to 6).
//
// Layout (little-endian; a string is a uint16 length counting a final NUL, then the bytes):
//   uint32 binary_version
//   [v >= 2] string spec_name, uint32 spec_revision
//   uint32 num_variables, then per variable:
//     string name, uint8 rank, uint32 dims[rank],
//     v < 4:  uint8 item_size, uint32 num_elements   (item size 4 = f32, 2 = i16, 1 = i8)
//     v >= 4: uint8 dtype, uint32 num_bytes           (dtype ids below)
//     raw row-major bytes
//   [v >= 3] uint32 num_aliases, then per alias: string alias, string target
// Versions 5 and 6 keep the v4 layout (they changed how CTranslate2 rounds when it quantizes).
// Scalar attributes (num_heads, pre_norm, activation, ...) are stored as rank-0 variables.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "loader/model_index.h"
#include "heed/status.h"

namespace heed::convert::ct2 {

inline constexpr uint32_t kMaxBinaryVersion = 6;

// CTranslate2's DataType ids (append-only in CTranslate2, so they are stable).
enum class DType : uint8_t { F32 = 0, I8 = 1, I16 = 2, I32 = 3, F16 = 4, BF16 = 5 };

const char* dtype_name(DType dtype);
size_t dtype_size(DType dtype);

struct Variable {
  std::string name;
  std::vector<uint32_t> shape;  // empty for a scalar
  DType dtype = DType::F32;
  size_t offset = 0;            // of the first value byte in the file
  size_t size = 0;              // bytes

  size_t num_elements() const;
};

class ModelBin {
 public:
  // Parses the bytes of a model.bin; `where` names the file in error messages. Every read is
  // bounds-checked: a truncated or corrupt file gives an error naming the offset and variable.
  static Status parse(std::vector<uint8_t> bytes, const std::string& where, ModelBin* out);
  static Status read(const std::string& path, ModelBin* out);

  uint32_t binary_version() const { return binary_version_; }
  const std::string& spec_name() const { return spec_name_; }
  uint32_t spec_revision() const { return spec_revision_; }
  const std::vector<Variable>& variables() const { return variables_; }
  const std::vector<std::pair<std::string, std::string>>& aliases() const { return aliases_; }

  // Looks a variable up by name, following aliases (and NAME_scale of an aliased NAME, as
  // CTranslate2 does). nullptr when absent.
  const Variable* find(const std::string& name) const;
  // The name `alias` points to, or "" when it is not an alias.
  std::string alias_target(const std::string& alias) const;
  const uint8_t* data(const Variable& v) const { return bytes_.data() + v.offset; }
  // Renames variables in place (CTranslate2's revision-1 names); aliases are renamed too.
  void rename(std::string (*mapping)(std::string));

 private:
  void index();

  std::vector<uint8_t> bytes_;
  uint32_t binary_version_ = 0;
  std::string spec_name_;
  uint32_t spec_revision_ = 1;
  std::vector<Variable> variables_;
  std::vector<std::pair<std::string, std::string>> aliases_;
  std::unordered_map<std::string, size_t> by_name_;
  std::unordered_map<std::string, std::string> alias_to_;
};

}  // namespace heed::convert::ct2
