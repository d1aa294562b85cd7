// Model::open / from_bytes: get the file's bytes (memory mapping, or one aligned buffer), run every
// check of validate.h, then expose tensor views that point into those bytes.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "loader/model_index.h"
#include "loader/validate.h"

namespace heed {

namespace {

Status os_error(const std::string& path, const char* what) {
  return io_error(path + ": cannot " + what + ": " + std::strerror(errno));
}

// A 64-byte aligned buffer of exactly `size` bytes (so AddressSanitizer sees any read past the
// end of a truncated file), or nullptr.
void* aligned_buffer(size_t size) {
  void* p = nullptr;
  return ::posix_memalign(&p, kTensorAlignment, size == 0 ? 1 : size) == 0 ? p : nullptr;
}

// A stack's bound: a learned table has its rows; RoPE is bounded only where the file records the
// trained context; sinusoidal positions go on for ever.
size_t stack_positions(const fb::TransformerStack* stack) {
  if (stack == nullptr) return 0;
  const bool bounded = stack->position_encoding() == fb::PositionEncoding::Learned ||
                       (stack->position_encoding() == fb::PositionEncoding::RoPE && stack->max_positions() > 0);
  return bounded ? stack->max_positions() : 0;
}

Status read_all(int fd, const std::string& path, uint8_t* dst, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::read(fd, dst + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return os_error(path, "read");
    if (n == 0) return io_error(path + ": file shrank while being read");
    done += static_cast<size_t>(n);
  }
  return Status::success();
}

}  // namespace

Model::Model() : contents_(std::make_unique<Contents>()) {}

const Model::Contents& model_contents(const Model& model) { return *model.contents_; }

Model::~Model() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(bytes_), size_);
  std::free(owned_buffer_);
}

void Model::release_pages(const void* data, size_t bytes) const {
  if (!mapped_ || bytes == 0) return;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(bytes_), hi = lo + size_;
  const uintptr_t p = reinterpret_cast<uintptr_t>(data);
  if (p < lo || p > hi || bytes > hi - p) return;  // not inside this file's mapping
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (p + page - 1) / page * page, end = (p + bytes) / page * page;
  // The mapping is private and read-only, so no page holds anything the file does not; a failure
  // only leaves the memory resident.
  if (begin < end) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

Status Model::open(const std::string& path, const LoadOptions& options, std::unique_ptr<Model>* out) {
  out->reset();
  // Non-blocking, so that a FIFO given as the model is refused below instead of blocking open()
  // until a writer appears (a regular file ignores the flag).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return os_error(path, "open");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) return os_error(path, "stat");
  if (!S_ISREG(st.st_mode)) return io_error(path + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > SIZE_MAX) return io_error(path + ": file is too large for this device");
  const size_t size = static_cast<size_t>(st.st_size);

  std::unique_ptr<Model> model(new Model());
  model->size_ = size;
  if (size == 0) {
    // Nothing to map; the checks report the empty file.
  } else if (options.use_mmap) {
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) return os_error(path, "map");
    model->bytes_ = static_cast<const uint8_t*>(p);
    model->mapped_ = true;
  } else {
    model->owned_buffer_ = aligned_buffer(size);
    if (!model->owned_buffer_) return Status(StatusCode::kOutOfMemory, path + ": cannot allocate " + std::to_string(size) + " bytes");
    HEED_RETURN_IF_ERROR(read_all(fd, path, static_cast<uint8_t*>(model->owned_buffer_), size));
    model->bytes_ = static_cast<const uint8_t*>(model->owned_buffer_);
  }
  HEED_RETURN_IF_ERROR(model->init(path));
  *out = std::move(model);
  return Status::success();
}

Status Model::from_bytes(const uint8_t* bytes, size_t size, std::unique_ptr<Model>* out) {
  out->reset();
  if (!bytes && size != 0) return invalid_argument("Model::from_bytes: null bytes");
  std::unique_ptr<Model> model(new Model());
  model->size_ = size;
  if (reinterpret_cast<uintptr_t>(bytes) % kTensorAlignment == 0) {
    model->bytes_ = bytes;
  } else {
    // Tensor data must be 64-byte aligned for the kernels; copy rather than hand out misaligned views.
    model->owned_buffer_ = aligned_buffer(size);
    if (!model->owned_buffer_) return Status(StatusCode::kOutOfMemory, "cannot allocate " + std::to_string(size) + " bytes");
    if (size) std::memcpy(model->owned_buffer_, bytes, size);
    model->bytes_ = static_cast<const uint8_t*>(model->owned_buffer_);
  }
  HEED_RETURN_IF_ERROR(model->init("<memory>"));
  *out = std::move(model);
  return Status::success();
}

Status Model::init(const std::string& where) {
  uint64_t weights_offset = 0;
  Contents& c = *contents_;
  HEED_RETURN_IF_ERROR(loader::check_container(bytes_, size_, where, &c.index, &weights_offset));
  c.weights = bytes_ + weights_offset;
  HEED_RETURN_IF_ERROR(loader::validate_config(*c.index, where));
  HEED_RETURN_IF_ERROR(loader::validate_tensors(*c.index, c.weights, where, &c.tensors, &c.by_name));
  HEED_RETURN_IF_ERROR(loader::validate_tokenizer(*c.index, where));
  HEED_RETURN_IF_ERROR(loader::validate_vocab_map(*c.index, where));
  return Status::success();
}

const char* Model::metadata(std::string_view key) const {
  const fb::Model& index = *contents_->index;
  if (!index.metadata()) return nullptr;
  for (const auto* kv : *index.metadata()) {
    if (kv && kv->key() && kv->key()->string_view() == key) return kv->value() ? kv->value()->c_str() : "";
  }
  return nullptr;
}

const char* Model::family_name() const { return fb::EnumNameModelConfig(contents_->index->config_type()); }

PositionLimits Model::position_limits() const {
  PositionLimits p;
  const fb::Model& index = *contents_->index;
  if (const auto* c = index.config_as_TransformerEncoderDecoder()) {
    p.source = stack_positions(c->encoder());
    p.target = stack_positions(c->decoder());
  } else if (const auto* d = index.config_as_TransformerDecoderOnly()) {
    p.target = stack_positions(d->decoder());
  } else if (const auto* e = index.config_as_TransformerEncoderOnly()) {
    p.source = stack_positions(e->encoder());
  } else if (const auto* r = index.config_as_RnnSeq2Seq()) {
    p.source = r->max_source_positions();  // 0 (no limit) unless the location score fixes them
  }
  return p;
}

const TensorView* find_tensor(const Model& model, std::string_view name) {
  const auto& c = model_contents(model);
  auto it = c.by_name.find(name);
  return it == c.by_name.end() ? nullptr : &c.tensors[it->second];
}

Status require_tensor(const Model& model, std::string_view name, const TensorView** out) {
  *out = find_tensor(model, name);
  if (!*out) return invalid_file("model is missing tensor '" + std::string(name) + "'");
  return Status::success();
}

}  // namespace heed
