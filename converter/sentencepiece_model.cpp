#include "sentencepiece_model.h"

#include "heed/tokenizer.h"
#include "source_files.h"

namespace heed::convert {

Status read_sentencepiece_model(const std::string& path, std::vector<uint8_t>* out) {
  HEED_RETURN_IF_ERROR(read_nonempty_bytes(path, out));
  const Status s = check_sentencepiece_model(out->data(), out->size());
  if (!s.is_ok()) return Status(s.code(), path + ": " + s.message());
  return Status::success();
}

}  // namespace heed::convert
