/* Shared by the GA C test programs. CHECK(cond, printf-style message): on failure, prints the
 * rank, file, line and message, then ends the whole job through GA_Error (every rank stops, the
 * exit status is non-zero). */
#ifndef GAEA_GA_TEST_CHECK_H
#define GAEA_GA_TEST_CHECK_H

#include <stdio.h>

#include "ga.h"

#define CHECK(cond, ...)                                                                     \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      char msg_[512];                                                                        \
      snprintf(msg_, sizeof msg_, __VA_ARGS__);                                              \
      fprintf(stderr, "rank %d: FAILED %s:%d: %s\n", GA_Nodeid(), __FILE__, __LINE__, msg_); \
      GA_Error(msg_, __LINE__);                                                              \
    }                                                                                        \
  } while (0)

#endif
