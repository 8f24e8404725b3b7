/*===- kill-mid-write.c - SIGKILL halfway through a write -----------------===*
 *
 * Part of the tile project.
 *
 *===----------------------------------------------------------------------===*
 *
 * An LD_PRELOAD shim for cache-stress.py: the first write() to a file whose
 * path contains $KILL_MID_WRITE writes half its bytes, then the process
 * kills itself with SIGKILL, as a machine that loses power mid-write would.
 *
 *===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t write(int fd, const void *buffer, size_t count) {
  static ssize_t (*real)(int, const void *, size_t);
  if (!real)
    real = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
  const char *fragment = getenv("KILL_MID_WRITE");
  char link[64], target[4096];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t length = fragment ? readlink(link, target, sizeof(target) - 1) : -1;
  if (length > 0 && count > 1) {
    target[length] = 0;
    if (strstr(target, fragment)) {
      real(fd, buffer, count / 2);
      raise(SIGKILL);
    }
  }
  return real(fd, buffer, count);
}
