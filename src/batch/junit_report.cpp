//===- batch/junit_report.cpp - JUnit XML for CI test dashboards ----------===//
//
// JUnit XML has no formal schema; this is the common subset Jenkins,
// GitLab and the GitHub test-report actions read: testsuites > testsuite >
// testcase with failure / error / skipped / system-out, and properties.
//
#include "racepredict/batch/batch_report.h"

#include "racepredict/report/signature.h"
#include "racepredict/support/utf8.h"

#include <sstream>

namespace racepredict::batch {

namespace {

/// XML 1.0 text: escaped, control characters dropped, bytes that are not
/// UTF-8 written as `\xHH` as in every other report (support/utf8.h).
std::string xmlEscape(const std::string &s) {
  std::string out;
  for (char ch : escapeNonUtf8(s)) {
    switch (ch) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      if (static_cast<unsigned char>(ch) >= 0x20 || ch == '\n' || ch == '\t' ||
          ch == '\r')
        out += ch;
    }
  }
  return out;
}

std::string attr(const char *name, const std::string &value) {
  return std::string(" ") + name + "=\"" + xmlEscape(value) + "\"";
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

/// Longest witness printed in full in a failure; longer ones keep their
/// first and last steps (the JSON report has every step).
constexpr size_t kMaxTextSteps = 400;

} // namespace

std::string witnessText(const TestFinding &tf) {
  const report::Finding &f = tf.finding;
  std::ostringstream out;
  out << f.message << "\n";
  out << "Status: "
      << (f.status == "predicted"
              ? "predicted (witness validated on the trace; not replayed)"
              : findingStatusText(tf))
      << "\n";
  out << "Signature: " << tf.signature << "\n";
  out << "Trace: " << tf.trace << "\n";
  if (tf.replay.is_object()) {
    std::string w = tf.replay.value("witness_file", std::string());
    std::string again = tf.replay.value("reproduce", std::string());
    if (!w.empty())
      out << "Witness file: " << w << "\n";
    if (!again.empty())
      out << "Replay it again: " << again << "\n";
  }
  size_t n = f.witness.size();
  const char *tail = f.kind == report::FindingKind::Race ? "; the last two race"
                     : f.kind == report::FindingKind::Deadlock
                         ? "; the marked requests block forever"
                         : "";
  out << "Witness schedule (" << n << " events" << tail << "):\n";
  size_t width = std::to_string(n).size();
  size_t head = n > kMaxTextSteps ? kMaxTextSteps / 4 : n;
  size_t tailFrom = n > kMaxTextSteps ? n - (kMaxTextSteps - head) : n;
  for (size_t i = 0; i < n; ++i) {
    if (i == head && head < tailFrom) {
      out << "    … " << (tailFrom - head)
          << " steps left out (the JSON report has all of them) …\n";
      i = tailFrom;
    }
    const auto &w = f.witness[i];
    std::string num = std::to_string(i + 1);
    out << "  " << std::string(width - num.size(), ' ') << num << ". ["
        << w.site.event << "] " << w.site.text << (w.essential ? "   <==" : "")
        << "\n";
  }
  return out.str();
}

std::string junitXml(const BatchRun &run) {
  Summary s = summarize(run.tests);
  std::ostringstream x;
  // JUnit has no "unconfirmed": such a test is a <skipped> case (not
  // passed, not a failure of the program's code that replay showed).
  std::string counts =
      attr("tests", std::to_string(s.tests)) +
      attr("failures", std::to_string(s.failed)) +
      attr("errors", std::to_string(s.errors)) +
      attr("skipped", std::to_string(s.skipped + s.unconfirmedTests)) +
      attr("time", seconds(run.seconds));
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites" << attr("name", "racepredict") << counts << ">\n";
  x << "  <testsuite" << attr("name", "racepredict batch") << counts
    << attr("timestamp", run.started) << attr("hostname", run.hostname)
    << ">\n";
  x << "    <properties>\n";
  for (const auto &[k, v] : std::vector<std::pair<std::string, std::string>>{
           {"input", run.input},
           {"executor", run.executor},
           {"source_root", run.sourceRoot},
           {"baseline", run.baselinePath},
           {"replay", run.replay ? "on" : "off"},
           {"confirmation", confirmationNote(run)}})
    if (!v.empty())
      x << "      <property" << attr("name", k) << attr("value", v) << "/>\n";
  x << "    </properties>\n";
  for (const auto &t : run.tests) {
    x << "    <testcase" << attr("name", t.spec.name)
      << attr("classname", "racepredict") << attr("time", seconds(t.seconds))
      << ">\n";
    // Unconfirmed findings are no failures, but the test did not pass
    // either (<skipped> below); CI tools that read testcase properties show
    // them next to the test (and <system-out> has them).
    std::vector<const TestFinding *> unconfirmed;
    for (const auto &f : t.findings)
      if (f.verdict == "unconfirmed")
        unconfirmed.push_back(&f);
    if (!unconfirmed.empty()) {
      x << "      <properties>\n";
      for (const TestFinding *f : unconfirmed)
        x << "        <property"
          << attr("name", std::string("racepredict.unconfirmed.") +
                              report::findingKindName(f->finding.kind))
          << attr("value", f->finding.status + ": " + f->finding.message)
          << "/>\n";
      x << "      </properties>\n";
    }
    for (const auto &f : t.findings)
      if (f.verdict == "new")
        x << "      <failure"
          << attr("type", report::findingKindName(f.finding.kind))
          << attr("message", f.finding.message) << ">"
          << xmlEscape(witnessText(f)) << "</failure>\n";
    if (testOutcome(t) == "unconfirmed")
      x << "      <skipped"
        << attr("message",
                "unconfirmed: " + std::to_string(unconfirmed.size()) +
                    " predicted finding" +
                    (unconfirmed.size() == 1 ? "" : "s") +
                    " that replay did not confirm (see the properties and "
                    "system-out)")
        << "/>\n";
    else if (t.status == kStatusSkipped)
      x << "      <skipped" << attr("message", t.reason) << "/>\n";
    else if (t.status != kStatusOk)
      x << "      <error" << attr("type", t.status) << attr("message", t.reason)
        << ">" << xmlEscape(t.reason) << "</error>\n";
    std::ostringstream info;
    if (!t.ran.empty())
      info << "program: " << t.ran << "\n";
    if (!t.replayNote.empty())
      info << "not replayed (findings predicted only): " << t.replayNote
           << "\n";
    for (const auto &tr : t.traces)
      info << "trace " << tr.path << ": " << tr.events << " events, "
           << tr.findings << " findings, " << tr.status
           << (tr.truncated ? " (truncated)" : "") << "\n";
    for (const auto &f : t.findings)
      if (f.verdict == "known")
        info << "known (in the baseline): " << f.finding.message << "\n";
      else if (f.verdict == "suppressed")
        info << "suppressed by " << f.suppressedBy << ": " << f.finding.message
             << "\n";
    for (const TestFinding *f : unconfirmed) {
      info << "unconfirmed by replay: " << f->finding.message << "\n"
           << "  " << findingStatusText(*f) << "\n";
      std::string w = f->replay.is_object()
                          ? f->replay.value("witness_file", std::string())
                          : std::string();
      if (!w.empty())
        info << "  witness file: " << w << "\n";
    }
    if (!t.outputTail.empty())
      info << "--- end of the test's output ---\n" << t.outputTail;
    if (!info.str().empty())
      x << "      <system-out>" << xmlEscape(info.str()) << "</system-out>\n";
    x << "    </testcase>\n";
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

} // namespace racepredict::batch
