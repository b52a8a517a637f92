//===- replay/schedule_writer.cpp - The schedule file of docs/replay.md ---===//
#include "racepredict/abi/replay.h"
#include "racepredict/replay/schedule.h"
#include "racepredict/support/utf8.h"

#include <ostream>

namespace racepredict::replay {

std::string encodeField(const std::string &s) {
  if (s.empty())
    return "-";
  if (s == "-")
    return "%2D";
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (c <= 0x20 || c >= 0x7f || c == '%') {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// Descriptions are what the replaying program prints (docs/replay.md), so
// they are UTF-8 like every report (support/utf8.h); file names stay bytes:
// the runtime compares them with the program's own.
void writeSchedule(const Schedule &s, std::ostream &out) {
  out << "RPSCHED " << RP_SCHEDULE_VERSION << "\n"
      << "kind "
      << (s.kind == Schedule::Kind::Race       ? "race"
          : s.kind == Schedule::Kind::Deadlock ? "deadlock"
                                               : "violation")
      << "\n"
      << "threads " << s.threads.size() << " steps " << s.steps.size()
      << " wakes " << s.wakes.size() << " blocks " << s.blocks.size() << "\n";
  for (size_t i = 0; i < s.threads.size(); ++i) {
    const auto &t = s.threads[i];
    out << "thread " << i << " ";
    if (t.parent == kRoot)
      out << "-";
    else
      out << t.parent;
    out << " " << t.childOrdinal << " " << encodeField(t.name) << "\n";
  }
  for (const auto &st : s.steps)
    out << "step " << st.thread << " " << st.ordinal << " "
        << trace::opName(st.kind) << " " << (st.half ? 1 : 0) << " "
        << ((st.noNotify ? RP_STEP_NO_NOTIFY : 0) |
            (st.pastDeadline ? RP_STEP_PAST_DEADLINE : 0))
        << " " << st.loc.line << " " << st.loc.column << " "
        << encodeField(st.loc.file) << " "
        << encodeField(escapeNonUtf8(st.desc)) << "\n";
  for (const auto &w : s.wakes)
    out << "wake " << w.step << " " << w.thread << " " << w.ordinal << "\n";
  if (s.kind == Schedule::Kind::Race)
    out << "race " << s.steps.size() - 2 << " " << s.steps.size() - 1 << "\n";
  auto opt = [](uint32_t v) {
    return v == kRoot ? std::string("-") : std::to_string(v);
  };
  for (const auto &b : s.blocks)
    out << "block " << b.thread << " " << b.ordinal << " "
        << trace::opName(b.kind) << " " << analysis::blockKindName(b.on) << " "
        << b.loc.line << " " << b.loc.column << " " << encodeField(b.loc.file)
        << " " << opt(b.other) << " " << opt(b.otherOrdinal) << " "
        << opt(b.ref) << " " << encodeField(escapeNonUtf8(b.desc)) << "\n";
  out << "end\n";
}

} // namespace racepredict::replay
