/* The failure counter and CHECK of the C99 test programs (embed_c.c, heads_c.c). */
#ifndef HEED_TESTS_C_CHECK_H_
#define HEED_TESTS_C_CHECK_H_

#include <stdio.h>

static int failures = 0;
#define CHECK(cond, what)                                                       \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #cond, what); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

#endif /* HEED_TESTS_C_CHECK_H_ */
