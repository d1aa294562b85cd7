// Counts heap allocations of the whole program, for the tests that prove sessions do not allocate
// after creation. Linking heed_allocation_counter replaces malloc/calloc/realloc/free and every
// global operator new/delete with versions that count and forward to glibc's __libc_* functions.
//
// Counting needs glibc and a build without AddressSanitizer or ThreadSanitizer (those own the
// allocator): HEED_COUNT_ALLOCATIONS is 0 there and tests say they are skipped.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HEED_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HEED_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef HEED_COUNT_ALLOCATIONS
#if defined(__GLIBC__)
#define HEED_COUNT_ALLOCATIONS 1
#else
#define HEED_COUNT_ALLOCATIONS 0
#endif
#endif

namespace heed::test {

// Allocations (any thread) since the program started; 0 forever when counting is off.
size_t allocation_count();

// True when one `new int` moves the count by exactly one: the replacement is really in place.
bool allocation_counter_works();

}  // namespace heed::test
