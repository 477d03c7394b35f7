/* A fake of GEOPM's runtime library (libgeopm) for the region-markup tests: it exports the three
 * profiling calls Gaea resolves with dlopen/dlsym and appends one line per call to the file named
 * by FAKE_GEOPM_LOG (nothing when unset):
 *   <pid> region <name> <hint in hex> <id>      geopm_prof_region
 *   <pid> enter <id>                            geopm_prof_enter
 *   <pid> exit <id>                             geopm_prof_exit
 * Built twice by tests/CMakeLists.txt: complete, and with FAKE_GEOPM_NO_EXIT (geopm_prof_exit
 * missing) for the missing-symbol test. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_VISIBLE __attribute__((visibility("default")))

/* One write per line with O_APPEND: the lines of ranks sharing the file do not interleave. */
static void fake_log(const char* text) {
  const char* path = getenv("FAKE_GEOPM_LOG");
  if (!path || !*path) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd < 0) return;
  ssize_t n = write(fd, text, strlen(text));
  (void)n;
  close(fd);
}

FAKE_VISIBLE int geopm_prof_region(const char* region_name, uint64_t hint, uint64_t* region_id) {
  if (!region_name || !region_id) return -1;
  /* Any stable id: a hash of the name in the low 32 bits, as GEOPM's ids carry no hint there. */
  uint32_t h = 2166136261u;
  for (const char* c = region_name; *c; ++c)
    h = (h ^ (uint32_t)(unsigned char)*c) * 16777619u;
  *region_id = h;
  char line[256];
  snprintf(line, sizeof line, "%ld region %s 0x%llx %llu\n", (long)getpid(), region_name,
           (unsigned long long)hint, (unsigned long long)*region_id);
  fake_log(line);
  return 0;
}

FAKE_VISIBLE int geopm_prof_enter(uint64_t region_id) {
  char line[64];
  snprintf(line, sizeof line, "%ld enter %llu\n", (long)getpid(), (unsigned long long)region_id);
  fake_log(line);
  return 0;
}

#ifndef FAKE_GEOPM_NO_EXIT
FAKE_VISIBLE int geopm_prof_exit(uint64_t region_id) {
  char line[64];
  snprintf(line, sizeof line, "%ld exit %llu\n", (long)getpid(), (unsigned long long)region_id);
  fake_log(line);
  return 0;
}
#endif
