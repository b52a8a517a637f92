//===- support/memory.h - Running out of memory is not an internal error --===//
//
// An analysis that needs more memory than the process may use (ulimit -v,
// a cgroup, the machine) must say so — what it was doing, on which trace,
// how much it had and may have — and exit as inconclusive (4), never die
// as an internal error (3) hours later. The out-of-memory handler is a
// std::new_handler, so it also catches solver worker threads, where a
// std::bad_alloc would otherwise terminate the process; it writes with
// write(2) from buffers prepared in advance and calls _exit.
//
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace racepredict {

/// The exit status after running out of memory (the tools' "inconclusive").
inline constexpr int kOutOfMemoryExit = 4;

/// The least of the limits that apply to this process: RLIMIT_AS,
/// RLIMIT_DATA, the cgroup's memory.max and the machine's memory plus
/// swap; nullopt if none could be read.
std::optional<uint64_t> memoryLimitBytes();

/// The process's peak resident set so far.
uint64_t peakResidentBytes();

/// "1.5 GB", "300 MB", "12 KB".
std::string bytesText(uint64_t bytes);

/// Why `need` more bytes, on top of `inUse`, do not fit under `limit` (one
/// clause for a message), or nullopt when they do or there is no limit.
std::optional<std::string> memoryShortfall(uint64_t need, uint64_t inUse,
                                           std::optional<uint64_t> limit);

/// Installs the handler (once, in main).
void installOutOfMemoryHandler();

/// What the tool is doing now, for the handler's message ("predicting
/// races in t.rptrace (1200000 events, 8 threads)"); copied into a fixed
/// buffer, so the handler needs no allocation.
void setActivity(const std::string &what);

} // namespace racepredict
