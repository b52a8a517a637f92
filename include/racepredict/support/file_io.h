//===- support/file_io.h - Opening inputs, checked writes of outputs ------===//
//
// Every file the tools read or write goes through these, so that a failure
// is one sentence naming the file and the reason the system gave
// (`cannot open trace 'x': Permission denied`, `'d' is a directory, not a
// trace`, `cannot write report '/dev/full': No space left on device`)
// instead of a generic "cannot open" or, for writes, silence.
//
#pragma once

#include "racepredict/support/error.h"
#include "racepredict/support/utf8.h"

#include <fstream>
#include <memory>
#include <ostream>
#include <string>

namespace racepredict {

/// Opens `path` for reading. `what` names the file's role in messages
/// ("trace", "witness", "property file"). A directory, a missing or
/// unreadable file is an Error saying which.
Expected<std::ifstream>
openInput(const std::string &path, const std::string &what,
          std::ios::openmode mode = std::ios::in | std::ios::binary);

/// "cannot write WHAT 'PATH': REASON", REASON from `err` (an errno value;
/// 0 when the system gave none).
std::string writeErrorMessage(const std::string &what, const std::string &path,
                              int err);

/// A file being written (or standard output for "-"): `finish()` flushes,
/// closes and tells whether every byte reached it. Nothing written to it
/// can fail silently: a command calls finish() before it reports success.
/// Text (reports) goes through a Utf8Filter; binary (traces) as it is.
class OutputFile {
public:
  enum class Kind { Text, Binary };
  /// Opens (truncates) `path`; "-" is standard output.
  static Expected<OutputFile> open(const std::string &path,
                                   const std::string &what,
                                   Kind kind = Kind::Text);

  std::ostream &stream() { return *stream_; }
  /// Flushes and closes; an Error naming the file if any write failed.
  Expected<bool> finish();

private:
  OutputFile(std::string path, std::string what)
      : path_(std::move(path)), what_(std::move(what)) {}
  std::string path_, what_;
  // Behind pointers: the filter and stream refer to the file's buffer,
  // which must not move when an OutputFile does.
  std::unique_ptr<std::ofstream> file_;
  std::unique_ptr<ForwardingBuf> buf_; ///< a Utf8Filter for Kind::Text
  std::unique_ptr<std::ostream> own_;
  std::ostream *stream_ = nullptr;
};

/// Writes `content` to `path` in one go (witness files, reports of batch);
/// an Error names the file and the reason.
Expected<bool> writeWholeFile(const std::string &path, const std::string &what,
                              const std::string &content);

/// Flushes standard output; an Error when anything written to it since the
/// start was lost (the tool's exit status must then say so). The loss is
/// reported once; later calls return true.
Expected<bool> finishStandardOutput();

/// Standard output without the Utf8Filter the tool installs on std::cout
/// (for traces written to "-", which are bytes).
std::streambuf *rawStandardOutput();

} // namespace racepredict
