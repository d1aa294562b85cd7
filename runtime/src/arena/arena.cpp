// The arena's memory: one anonymous mapping at session creation, or the caller's buffer.
//
// An owned arena is mapped, not allocated: the kernel hands out zero pages lazily, so the arena
// starts zeroed without a memset that would fault in (and keep resident) every page of a plan
// sized for the session's limits. Pages are touched, and become resident, only as decoding uses
// them; a short sentence in a session planned for 256 tokens never pays for the rest. The
// decoding engine's buffers are an arena too (decoding/decoding_storage.cpp).
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "arena/arena.h"

namespace heed {
namespace {

// mmap needs a non-zero length; page alignment covers kArenaAlignment.
size_t mapped_bytes(size_t size) { return size == 0 ? kArenaAlignment : size; }

// 2 MiB pages where the kernel gives them for the asking (transparent huge pages in `madvise`
// mode, the usual default), for arenas of kHugePageMinBytes and more only. A large batch's GEMMs
// write output rows in turn, each up to 128 KiB (a 32,000-token vocabulary) from the last, so with
// 4 KiB pages every row of an output tile is its own TLB entry (docs/benchmarks.md: batch 16 x
// beam 4 decodes 2-10 % faster). A small session gains nothing (batch-1 greedy: 0.99x) and pays
// the rounding: every touched region grows to 2 MiB (peak anonymous memory of batch-1 greedy
// `heed translate` on the OPUS-MT-size model: 15.0 MiB against 11.5 MiB with 4 KiB pages), which
// on a 512 MiB board is what matters. Arenas planned for the OPUS-MT-size model at the default
// 256 tokens: batch 1 greedy 14 MB, beam 4 x batch 1 34 MB, beam 4 x batch 4 131 MB, beam 4 x
// batch 16 520 MB; the decoding engine's buffers stay under 10 MB. A hint only: pages stay lazy,
// and a kernel without them ignores it.
constexpr size_t kHugePageMinBytes = size_t{64} << 20;

void ask_for_huge_pages(void* mapping, size_t bytes) {
  if (bytes < kHugePageMinBytes) return;
#ifdef MADV_HUGEPAGE
  ::madvise(mapping, bytes, MADV_HUGEPAGE);
#else
  (void)mapping;
#endif
}

}  // namespace

Arena::~Arena() { release(); }

Arena::Arena(Arena&& other) noexcept
    : owned_(other.owned_), base_(other.base_), size_(other.size_) {
  other.owned_ = nullptr;
  other.base_ = nullptr;
  other.size_ = 0;
}

Arena& Arena::operator=(Arena&& other) noexcept {
  if (this != &other) {
    release();
    owned_ = other.owned_;
    base_ = other.base_;
    size_ = other.size_;
    other.owned_ = nullptr;
    other.base_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void Arena::release() {
  if (owned_ != nullptr) ::munmap(owned_, mapped_bytes(size_));
  owned_ = nullptr;
  base_ = nullptr;
  size_ = 0;
}

Status Arena::create(size_t bytes, const ArenaOptions& options, Arena* out) {
  out->release();
  const size_t needed = align_up(bytes);
  if (options.buffer != nullptr) {
    const uintptr_t start = reinterpret_cast<uintptr_t>(options.buffer);
    const size_t skip = align_up(start) - start;  // bytes lost to aligning the caller's pointer
    if (options.size < skip || options.size - skip < needed) {
      return invalid_argument("arena buffer too small: " + std::to_string(options.size) +
                              " bytes given, " + std::to_string(needed + skip) +
                              " needed (" + std::to_string(needed) + " when 64-byte aligned)");
    }
    out->base_ = static_cast<uint8_t*>(options.buffer) + skip;
    out->size_ = needed;
  } else if (options.size != 0) {
    return invalid_argument("arena options: a size was given without a buffer");
  } else {
    void* p = ::mmap(nullptr, mapped_bytes(needed), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      return Status(StatusCode::kOutOfMemory,
                    "cannot allocate a session arena of " + std::to_string(needed) + " bytes");
    }
    ask_for_huge_pages(p, mapped_bytes(needed));
    out->owned_ = p;
    out->base_ = static_cast<uint8_t*>(p);
    out->size_ = needed;
    return Status::success();  // fresh anonymous pages read as zero
  }
  if (out->size_ != 0) std::memset(out->base_, 0, out->size_);
  return Status::success();
}

}  // namespace heed
