//===- tools/racepredict/cmd_convert.cpp - `racepredict convert IN OUT` ---===//
//
// Converts between the text and binary formats (both lossless for every
// field the text format has; the binary format also keeps access sizes) and
// imports RAPID STD traces. The output format follows OUT's extension
// (.rptrace = binary, anything else = text) unless --to says otherwise.
//
#include "commands.h"

#include "racepredict/support/file_io.h"
#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/std_format.h"
#include "racepredict/trace/text_format.h"
#include "racepredict/trace/trace_file.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

namespace racepredict::tool {
namespace {

struct ConvertArgs {
  std::string in;
  std::string out;
  std::string to;
  std::string from;
  bool allowTruncated = false;
};

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A word of the text format: no blanks, no comment sign, not a location.
bool textWord(const std::string &s) {
  if (s.empty() || s[0] == '@')
    return false;
  for (unsigned char c : s)
    if (c <= ' ' || c == '#' || c == 0x7f)
      return false;
  return true;
}

/// Binary traces can hold names the text format cannot spell (a recorded
/// file name with a blank, say). Refuse instead of writing a text trace that
/// does not read back as the same trace.
std::optional<std::string> textProblem(const trace::Trace &t) {
  static const char *const kSpace[trace::kNumNameSpaces] = {
      "thread",  "location",  "lock",   "cond",
      "barrier", "semaphore", "custom", "channel"};
  for (int ns = 0; ns < trace::kNumNameSpaces; ++ns)
    for (trace::SymId id = 0; id < t.names[ns].size(); ++id) {
      const std::string &n = t.names[ns].name(id);
      if (!textWord(n) || (ns == 0 && n == "init"))
        return std::string(kSpace[ns]) + " name '" + n + "'";
    }
  // Source files and functions are %XX-escaped by the text writer.
  return std::nullopt;
}

int runConvert(const ConvertArgs &a) {
  trace::ReadOptions ro;
  ro.allowTruncated = a.allowTruncated;
  if (a.from == "text")
    ro.format = trace::TraceFormat::Text;
  else if (a.from == "binary")
    ro.format = trace::TraceFormat::Binary;
  else if (a.from == "std")
    ro.format = trace::TraceFormat::Std;
  trace::ReadInfo info;
  auto t = trace::readTraceFile(a.in, ro, &info);
  if (!t) {
    std::cerr << "racepredict: " << t.error().message << "\n";
    return kExitInput;
  }
  if (info.truncated)
    std::cerr << "racepredict: warning: " << info.truncation
              << " (converting the events before the cut)\n";
  bool binary = a.to.empty() ? endsWith(a.out, ".rptrace") : a.to == "binary";
  if (!binary) {
    // Recorded code without debug information has locations with a function
    // but no file; the text format needs a file, so it is spelled "??" (as
    // symbolizers do). Everything else must be representable as it is.
    for (size_t i = 1; i < t->sources.size(); ++i)
      if (t->sources[i].file.empty())
        t->sources[i].file = "??";
    if (auto problem = textProblem(*t)) {
      std::cerr << "racepredict: " << a.in << ": the " << *problem
                << " cannot be written in the text format (blank, '#' or "
                   "control character, or a thread named 'init'); convert to "
                   "binary instead\n";
      return kExitInput;
    }
  }
  // Names are bytes in both formats: no UTF-8 filter on a trace.
  auto out = OutputFile::open(a.out, "trace", OutputFile::Kind::Binary);
  if (!out) {
    std::cerr << "racepredict: " << out.error().message << "\n";
    return kExitInput;
  }
  if (binary)
    trace::writeBinaryTrace(*t, out->stream());
  else
    trace::writeTextTrace(*t, out->stream());
  return finishOutput(*out, kExitClean);
}

} // namespace

void addConvertCommand(CLI::App &app, int &exitCode) {
  auto args = std::make_shared<ConvertArgs>();
  CLI::App *cmd = app.add_subcommand(
      "convert", "Convert a trace between the text (.rpt.txt) and binary "
                 "(.rptrace) formats; also imports RAPID STD traces");
  cmd->add_option("in", args->in, "Input trace (format detected by content)")
      ->required();
  cmd->add_option("out", args->out,
                  "Output file ('-' = standard output); .rptrace is written "
                  "in the binary format, anything else as text")
      ->required();
  cmd->add_option("--to", args->to, "Output format (default: by extension)")
      ->check(CLI::IsMember({"text", "binary"}));
  cmd->add_option("--from", args->from,
                  "Input format (default: detected by content)")
      ->check(CLI::IsMember({"text", "binary", "std"}));
  cmd->add_flag("--allow-truncated", args->allowTruncated,
                "Accept a binary trace that was cut (no END block) and "
                "convert the events before the cut");
  cmd->callback([args, &exitCode] { exitCode = runConvert(*args); });
}

} // namespace racepredict::tool
