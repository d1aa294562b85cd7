// A loaded .heed file: the verified file index plus views of every tensor, which point into the
// memory mapping (weights are used in place, never copied). The file must not change while a
// Model is open: write a new model beside it and rename it over the old one, as heed convert does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "heed/status.h"

namespace heed {

// The newest format version this heed reads. The converter writes the lowest version that
// describes a file: 1, or 2 when a tensor has outlier channels (an older reader would ignore them
// and compute wrong products; docs/format.md, Versioning).
inline constexpr uint32_t kFormatVersion = 2;
inline constexpr uint32_t kFormatVersionWithoutOutliers = 1;
inline constexpr size_t kTensorAlignment = 64;

struct LoadOptions {
  bool use_mmap = true;  // false: read the file into one aligned buffer instead
};

// The positions a model can tell apart, per side: the rows of its learned position table (or the
// context a RoPE model was trained for, when the file records it). 0 where nothing bounds them
// (sinusoidal positions, RNNs, a side the model does not have). Sessions longer than these are
// refused, so callers size their limits from them.
struct PositionLimits {
  size_t source = 0;  // the encoder's positions (an RNN with the location score: its fixed source positions)
  size_t target = 0;  // the decoder's positions
};

class Model {
 public:
  // Maps (or reads) the file, verifies the FlatBuffer and validates every tensor and the
  // hyperparameters. On failure returns a status whose message is one line naming the problem.
  static Status open(const std::string& path, const LoadOptions& options, std::unique_ptr<Model>* out);
  // Same checks on bytes already in memory (tests, fuzzing). `bytes` must outlive the Model.
  static Status from_bytes(const uint8_t* bytes, size_t size, std::unique_ptr<Model>* out);

  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  PositionLimits position_limits() const;
  // The value of a metadata entry of the file (converters record languages, licenses, pooling,
  // source conventions), NUL-terminated and valid while the Model lives; null when absent.
  const char* metadata(std::string_view key) const;
  // The model family as the file names it ("TransformerEncoderDecoder", "TransformerDecoderOnly",
  // "TransformerEncoderOnly", "RnnSeq2Seq").
  const char* family_name() const;
  size_t file_size() const { return size_; }
  bool is_mapped() const { return mapped_; }
  // Mapped files only (otherwise a no-op): this process stops holding the pages that lie wholly in
  // [data, data + bytes) (madvise MADV_DONTNEED). They stay in the page cache and are read back
  // from the file if touched again, so nothing changes but resident memory. For weights another
  // copy of which now serves every call (XNNPACK's packed float32 weights).
  void release_pages(const void* data, size_t bytes) const;

 private:
  // The file's index and its tensor views: the runtime reads them through the accessors of
  // runtime/src/loader/model_index.h, which defines this; programs never see them.
  struct Contents;
  friend const Contents& model_contents(const Model& model);

  Model();
  Status init(const std::string& where);

  const uint8_t* bytes_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;
  void* owned_buffer_ = nullptr;  // read-into-buffer fallback
  std::unique_ptr<Contents> contents_;
};

}  // namespace heed
