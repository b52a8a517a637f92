//===- batch/test_result.cpp - Test results as JSON, both ways ------------===//
#include "racepredict/batch/test_result.h"

#include "racepredict/report/signature.h"

namespace racepredict::batch {

using json = nlohmann::ordered_json;

std::string worseStatus(const std::string &a, const std::string &b) {
  auto rank = [](const std::string &s) {
    if (s == kStatusError)
      return 4;
    if (s == kStatusTimeout)
      return 3;
    if (s == kStatusInconclusive)
      return 2;
    if (s == kStatusSkipped)
      return 1;
    return 0;
  };
  return rank(a) >= rank(b) ? a : b;
}

json testResultJson(const TestResult &r) {
  json traces = json::array();
  for (const auto &t : r.traces) {
    json j{{"path", t.path},       {"status", t.status},
           {"events", t.events},   {"truncated", t.truncated},
           {"unknown", t.unknown}, {"findings", t.findings}};
    if (!t.reason.empty())
      j["reason"] = t.reason;
    traces.push_back(std::move(j));
  }
  json findings = json::array();
  for (const auto &f : r.findings) {
    json j = report::findingJson(f.finding);
    j["trace"] = f.trace;
    if (!f.replay.is_null())
      j["replay"] = f.replay;
    if (!f.signature.empty()) {
      j["signature"] = f.signature;
      j["fingerprint"] = report::signatureFingerprint(f.signature);
    }
    if (!f.verdict.empty())
      j["verdict"] = f.verdict;
    if (!f.suppressedBy.empty())
      j["suppressed_by"] = f.suppressedBy;
    if (f.duplicates)
      j["duplicates"] = f.duplicates;
    findings.push_back(std::move(j));
  }
  json j = specJson(r.spec);
  j["status"] = r.status;
  if (!r.reason.empty())
    j["reason"] = r.reason;
  if (!r.ran.empty()) {
    j["ran"] = r.ran;
    j["program_failed"] = r.programFailed;
  }
  j["seconds"] = r.seconds;
  j["replayed"] = r.replayed;
  if (!r.replayNote.empty())
    j["replay_note"] = r.replayNote;
  j["traces"] = traces;
  j["findings"] = findings;
  if (!r.outputTail.empty())
    j["output_tail"] = r.outputTail;
  return j;
}

Expected<TestResult> testResultFromJson(const nlohmann::json &j) {
  auto spec = specFromJson(j);
  if (!spec)
    return spec.error();
  TestResult r;
  r.spec = std::move(*spec);
  std::string where = "test '" + r.spec.name + "': ";
  try {
    r.status = j.at("status").get<std::string>();
    r.reason = j.value("reason", "");
    r.ran = j.value("ran", "");
    r.programFailed = j.value("program_failed", false);
    r.seconds = j.value("seconds", 0.0);
    r.outputTail = j.value("output_tail", "");
    r.replayed = j.value("replayed", false);
    r.replayNote = j.value("replay_note", "");
    for (const auto &t : j.value("traces", nlohmann::json::array())) {
      TraceResult tr;
      tr.path = t.at("path").get<std::string>();
      tr.status = t.at("status").get<std::string>();
      tr.reason = t.value("reason", "");
      tr.events = t.value("events", size_t(0));
      tr.truncated = t.value("truncated", false);
      tr.unknown = t.value("unknown", size_t(0));
      tr.findings = t.value("findings", size_t(0));
      r.traces.push_back(std::move(tr));
    }
    for (const auto &f : j.value("findings", nlohmann::json::array())) {
      auto finding = report::findingFromJson(f);
      if (!finding)
        return Error{where + "finding: " + finding.error().message};
      TestFinding tf;
      tf.finding = std::move(*finding);
      tf.trace = f.value("trace", "");
      if (f.contains("replay") && f["replay"].is_object())
        tf.replay = f["replay"];
      r.findings.push_back(std::move(tf));
    }
  } catch (const nlohmann::json::exception &e) {
    return Error{where + e.what()};
  }
  return r;
}

} // namespace racepredict::batch
