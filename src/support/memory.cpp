//===- support/memory.cpp - Running out of memory is not an internal error ===//
#include "racepredict/support/memory.h"

#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>

namespace racepredict {

namespace {

char activity[512] = "starting";
std::atomic<bool> inHandler{false};
/// Given back to the allocator first thing in the handler, so that what
/// the message needs (nothing, by design) and the C library have room.
void *reserve = nullptr;
/// The limit, read at installation (the handler must not open files).
uint64_t limitAtStart = 0;

void writeAll(const char *s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = ::write(2, s, n);
    if (w <= 0)
      return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

void outOfMemory() {
  if (inHandler.exchange(true)) // another thread is already reporting
    for (;;)
      ::pause();
  std::free(reserve);
  reserve = nullptr;
  char peak[32], limit[64], line[1024];
  std::snprintf(peak, sizeof peak, "%s",
                bytesText(peakResidentBytes()).c_str());
  if (limitAtStart)
    std::snprintf(limit, sizeof limit, "; the limit is %s",
                  bytesText(limitAtStart).c_str());
  else
    limit[0] = '\0';
  std::snprintf(line, sizeof line,
                "racepredict: out of memory while %s (peak resident %s%s): "
                "the analysis is incomplete. Give it more memory (ulimit -v, "
                "the job's limit), fewer solver threads (-j), a time budget "
                "(--budget-s) or a shorter recording (RACEPREDICT_OPTIONS "
                "max_events=N)\n",
                activity, peak, limit);
  writeAll(line);
  ::_exit(kOutOfMemoryExit);
}

uint64_t readNumber(const char *path) {
  std::ifstream in(path);
  std::string s;
  if (!(in >> s) || s == "max")
    return 0;
  try {
    return std::stoull(s);
  } catch (...) {
    return 0;
  }
}

} // namespace

std::string bytesText(uint64_t b) {
  char buf[32];
  if (b >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.1f GB", b / double(uint64_t{1} << 30));
  else if (b >= (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%llu MB",
                  static_cast<unsigned long long>(b >> 20));
  else
    std::snprintf(buf, sizeof buf, "%llu KB",
                  static_cast<unsigned long long>(b >> 10));
  return buf;
}

std::optional<std::string> memoryShortfall(uint64_t need, uint64_t inUse,
                                           std::optional<uint64_t> limit) {
  if (!limit || inUse + need <= *limit)
    return std::nullopt;
  return "it takes about " + bytesText(need) + " on top of the " +
         bytesText(inUse) + " in use, and the limit is " + bytesText(*limit);
}

std::optional<uint64_t> memoryLimitBytes() {
  uint64_t best = 0;
  auto take = [&](uint64_t v) {
    if (v && (!best || v < best))
      best = v;
  };
  for (int r : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl;
    if (::getrlimit(r, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      take(rl.rlim_cur);
  }
  take(readNumber("/sys/fs/cgroup/memory.max"));
  uint64_t v1 = readNumber("/sys/fs/cgroup/memory/memory.limit_in_bytes");
  if (v1 < (uint64_t{1} << 60)) // v1 says "no limit" with a huge number
    take(v1);
  std::ifstream info("/proc/meminfo");
  std::string key;
  uint64_t kb, total = 0;
  std::string unit;
  while (info >> key >> kb >> unit)
    if (key == "MemTotal:" || key == "SwapTotal:")
      total += kb * 1024;
  take(total);
  if (!best)
    return std::nullopt;
  return best;
}

uint64_t peakResidentBytes() {
  struct rusage ru;
  if (::getrusage(RUSAGE_SELF, &ru) != 0)
    return 0;
  return static_cast<uint64_t>(ru.ru_maxrss) * 1024;
}

void installOutOfMemoryHandler() {
  if (!reserve)
    reserve = std::malloc(1 << 20);
  limitAtStart = memoryLimitBytes().value_or(0);
  std::set_new_handler(outOfMemory);
}

void setActivity(const std::string &what) {
  std::snprintf(activity, sizeof activity, "%s", what.c_str());
}

} // namespace racepredict
