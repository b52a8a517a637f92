//===- report/baseline.cpp - Read and write baseline files ----------------===//
#include "racepredict/report/baseline.h"

#include "racepredict/report/signature.h"
#include "racepredict/support/file_io.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace racepredict::report {

using json = nlohmann::ordered_json;

void Baseline::add(const std::string &signature, const BaselineEntry &e) {
  auto [it, inserted] = entries_.emplace(signature, e);
  if (!inserted)
    it->second.tests.insert(e.tests.begin(), e.tests.end());
}

Expected<Baseline> Baseline::load(const std::string &path) {
  auto opened = openInput(path, "baseline");
  if (!opened)
    return opened.error();
  std::ifstream &in = *opened;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error &e) {
    return Error{path + ": not valid JSON: " + e.what()};
  }
  auto findings = j.is_object() ? j.find("findings") : j.end();
  if (!j.is_object() || j.value("kind", "") != "baseline" ||
      findings == j.end() || !findings->is_array())
    return Error{path + ": not a racepredict baseline (expected an object "
                        "with \"kind\": \"baseline\" and a \"findings\" "
                        "array; write one with --write-baseline)"};
  Baseline b;
  for (size_t i = 0; i < findings->size(); ++i) {
    const auto &f = (*findings)[i];
    if (!f.is_object() || !f.contains("signature") ||
        !f["signature"].is_string())
      return Error{path + ": findings[" + std::to_string(i) +
                   "] has no \"signature\" string"};
    BaselineEntry e;
    e.kind = f.value("kind", "");
    e.message = f.value("message", "");
    if (f.contains("tests") && f["tests"].is_array())
      for (const auto &t : f["tests"])
        if (t.is_string())
          e.tests.insert(t.get<std::string>());
    b.add(f["signature"].get<std::string>(), e);
  }
  return b;
}

Expected<bool> Baseline::write(const std::string &path) const {
  json findings = json::array();
  for (const auto &[sig, e] : entries_)
    findings.push_back({{"signature", sig},
                        {"fingerprint", signatureFingerprint(sig)},
                        {"kind", e.kind},
                        {"message", e.message},
                        {"tests", e.tests}});
  json j{{"tool", "racepredict"},
         {"kind", "baseline"},
         {"schema_version", 1},
         {"findings", findings}};
  return writeWholeFile(path, "baseline", jsonText(j) + "\n");
}

} // namespace racepredict::report
