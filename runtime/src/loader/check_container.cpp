// The outer layer of a .heed file: size prefix, identifier, FlatBuffers verification, format
// version and where the weight segment starts. Nothing past these checks reads raw offsets.
#include <cstring>

#include "loader/model_index.h"
#include "loader/validate.h"

namespace heed::loader {

namespace {
constexpr size_t kPrefixBytes = sizeof(flatbuffers::uoffset_t);
// Prefix, root offset, identifier: the least a file must have before anything else is read.
constexpr size_t kHeaderBytes = kPrefixBytes + sizeof(flatbuffers::uoffset_t) + flatbuffers::kFileIdentifierLength;
}  // namespace

Status check_container(const uint8_t* bytes, size_t size, const std::string& where,
                       const fb::Model** index, uint64_t* weights_offset) {
  if (size < kHeaderBytes) {
    return invalid_file(where + ": not a heed model file (only " + std::to_string(size) + " bytes)");
  }
  if (!fb::SizePrefixedModelBufferHasIdentifier(bytes)) {
    return invalid_file(where + ": not a heed model file (no HEED identifier)");
  }
  uint32_t index_size = 0;
  std::memcpy(&index_size, bytes, sizeof index_size);
  index_size = flatbuffers::EndianScalar(index_size);
  if (index_size > size - kPrefixBytes) {
    return invalid_file(where + ": truncated file: the index needs " + std::to_string(index_size) +
                        " bytes after the size prefix but the file has " + std::to_string(size - kPrefixBytes));
  }
  const uint64_t buffer_size = kPrefixBytes + uint64_t{index_size};
  if (buffer_size >= FLATBUFFERS_MAX_BUFFER_SIZE) {
    return invalid_file(where + ": index of " + std::to_string(index_size) + " bytes is larger than FlatBuffers allows");
  }
  flatbuffers::Verifier::Options options;
  options.max_depth = 16;           // the schema nests at most 4 deep
  options.max_tables = 16u << 20;   // tensors + vocabulary entries are tables or strings; generous
  options.check_alignment = true;
  flatbuffers::Verifier verifier(bytes, static_cast<size_t>(buffer_size), options);
  if (!fb::VerifySizePrefixedModelBuffer(verifier)) {
    return invalid_file(where + ": corrupt index: the FlatBuffer failed verification");
  }
  const fb::Model* model = fb::GetSizePrefixedModel(bytes);
  const uint32_t version = model->format_version();
  if (version > kFormatVersion) {
    return Status(StatusCode::kUnsupportedVersion,
                  where + ": format version " + std::to_string(version) + " is newer than this heed reads (" +
                      std::to_string(kFormatVersion) + "); update heed");
  }
  if (version == 0) return invalid_file(where + ": format version 0 is not a valid heed format version");

  const uint64_t segment = align_up(buffer_size, kTensorAlignment);
  const uint64_t weights_size = model->weights_size();
  if (segment > size || weights_size > size - segment) {
    return invalid_file(where + ": truncated file: the weight segment needs " + std::to_string(weights_size) +
                        " bytes at offset " + std::to_string(segment) + " but the file has " + std::to_string(size) +
                        " bytes");
  }
  *index = model;
  *weights_offset = segment;
  return Status::success();
}

}  // namespace heed::loader
