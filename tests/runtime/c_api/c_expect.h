/* The C test programs' check: a failed condition prints "FAIL: " and its printf-style message and
 * counts in `failures` (each program returns non-zero when it is not 0). */
#ifndef HEED_TESTS_C_EXPECT_H
#define HEED_TESTS_C_EXPECT_H

#include <stdio.h>

static int failures = 0;

#define EXPECT(cond, ...)      \
  do {                         \
    if (!(cond)) {             \
      printf("FAIL: ");        \
      printf(__VA_ARGS__);     \
      printf("\n");            \
      ++failures;              \
    }                          \
  } while (0)

#endif
