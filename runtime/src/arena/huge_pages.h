// Asking the kernel for 2 MiB pages under memory heed reads or writes in long strides.
#pragma once

#include <cstddef>

namespace heed {

// madvise(MADV_HUGEPAGE) over the whole 4 KiB pages inside [p, p + bytes), where the kernel has
// transparent huge pages for the asking (`madvise` mode, the usual default): a GEMM writes its
// output rows in turn, each up to 128 KiB (a 32,000-token vocabulary) from the last, and streams
// weights a tile row at a time, so with 4 KiB pages nearly every access of a tile is its own TLB
// entry (docs/benchmarks.md: batch 16 x beam 4 decodes 2-10 % faster with the arenas on huge
// pages; the weights on huge pages measured no faster). A hint only: pages stay lazy, and a kernel
// without them ignores it. Call before the memory is first touched.
void ask_for_huge_pages(void* p, size_t bytes);

}  // namespace heed
