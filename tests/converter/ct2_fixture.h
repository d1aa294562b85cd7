// Test-side helpers for CTranslate2 files, written from the format description and independent of
// converter/ct2: a writer of model.bin files (any binary version) and a scanner that finds one
// variable's bytes in a real file by its name.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace heed::test::ct2 {

struct Var {
  std::string name;
  std::vector<uint32_t> shape;
  uint8_t dtype = 0;  // CTranslate2 ids: 0 f32, 1 i8, 2 i16, 3 i32, 4 f16, 5 bf16
  std::vector<uint8_t> bytes;
};

inline size_t element_size(uint8_t dtype) { return dtype == 0 || dtype == 3 ? 4 : dtype == 1 ? 1 : 2; }

inline Var f32_var(std::string name, std::vector<uint32_t> shape, const std::vector<float>& values) {
  Var v{std::move(name), std::move(shape), 0, {}};
  v.bytes.resize(values.size() * 4);
  std::memcpy(v.bytes.data(), values.data(), v.bytes.size());
  return v;
}

inline Var i8_scalar(std::string name, int8_t value) { return Var{std::move(name), {}, 1, {static_cast<uint8_t>(value)}}; }

class Writer {
 public:
  std::vector<uint8_t> bytes;
  void u8(uint8_t x) { bytes.push_back(x); }
  void u16(uint16_t x) { put(&x, 2); }
  void u32(uint32_t x) { put(&x, 4); }
  void str(const std::string& s) {
    u16(static_cast<uint16_t>(s.size() + 1));
    put(s.data(), s.size());
    u8(0);
  }
  void put(const void* p, size_t n) {
    const uint8_t* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
  }
};

// A model.bin of binary `version` (1..6): v1 has no spec, v3+ an alias table, v4+ dtype ids.
inline std::vector<uint8_t> model_bin(uint32_t version, const std::string& spec, uint32_t revision,
                                      const std::vector<Var>& vars,
                                      const std::vector<std::pair<std::string, std::string>>& aliases = {}) {
  Writer w;
  w.u32(version);
  if (version >= 2) {
    w.str(spec);
    w.u32(revision);
  }
  w.u32(static_cast<uint32_t>(vars.size()));
  for (const auto& v : vars) {
    w.str(v.name);
    w.u8(static_cast<uint8_t>(v.shape.size()));
    for (uint32_t d : v.shape) w.u32(d);
    if (version >= 4) {
      w.u8(v.dtype);
      w.u32(static_cast<uint32_t>(v.bytes.size()));
    } else {
      w.u8(static_cast<uint8_t>(element_size(v.dtype)));
      w.u32(static_cast<uint32_t>(v.bytes.size() / element_size(v.dtype)));
    }
    w.put(v.bytes.data(), v.bytes.size());
  }
  if (version >= 3) {
    w.u32(static_cast<uint32_t>(aliases.size()));
    for (const auto& [a, t] : aliases) {
      w.str(a);
      w.str(t);
    }
  }
  return w.bytes;
}

// Finds variable `name` in a model.bin by its serialized name (uint16 length + bytes + NUL) and
// returns its shape and value bytes. Returns false when absent.
inline bool scan_variable(const std::vector<uint8_t>& file, uint32_t version, const std::string& name,
                          std::vector<uint32_t>* shape, std::vector<uint8_t>* values, uint8_t* width_or_dtype) {
  std::vector<uint8_t> needle(2);
  const uint16_t length = static_cast<uint16_t>(name.size() + 1);
  std::memcpy(needle.data(), &length, 2);
  needle.insert(needle.end(), name.begin(), name.end());
  needle.push_back(0);
  for (size_t at = 0; at + needle.size() <= file.size(); ++at) {
    if (std::memcmp(file.data() + at, needle.data(), needle.size()) != 0) continue;
    size_t p = at + needle.size();
    const uint8_t rank = file[p++];
    shape->assign(rank, 0);
    for (uint8_t d = 0; d < rank; ++d, p += 4) std::memcpy(&(*shape)[d], file.data() + p, 4);
    *width_or_dtype = file[p++];
    uint32_t n = 0;
    std::memcpy(&n, file.data() + p, 4);
    p += 4;
    const size_t bytes = version >= 4 ? n : size_t{n} * *width_or_dtype;
    values->assign(file.begin() + static_cast<std::ptrdiff_t>(p), file.begin() + static_cast<std::ptrdiff_t>(p + bytes));
    return true;
  }
  return false;
}

inline std::vector<float> as_floats(const std::vector<uint8_t>& bytes) {
  std::vector<float> f(bytes.size() / 4);
  std::memcpy(f.data(), bytes.data(), f.size() * 4);
  return f;
}

}  // namespace heed::test::ct2
