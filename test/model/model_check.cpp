//===- test/model/model_check.cpp - Predictor vs enumerator on one trace --===//
#include "model_check.h"

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <sstream>

namespace racepredict::testsupport {

namespace {

std::string formatSteps(const std::vector<Step> &steps) {
  std::string s = "[";
  for (size_t i = 0; i < steps.size(); ++i) {
    if (i)
      s += " ";
    s += std::to_string(steps[i].event);
    if (steps[i].half)
      s += "h";
  }
  return s + "]";
}

/// Compares the predictor's set with the enumerator's; explains each pair
/// in one of them only with the witness the other side produced.
void compare(const solver::RaceResult &r, const EnumerationResult &en,
             const char *mode, ModelCheck *out) {
  Pairs got;
  std::ostringstream why;
  for (const auto &f : r.races) {
    got.insert({f.first, f.second});
    if (!en.races.count({f.first, f.second}))
      why << "  only the predictor finds (" << f.first << "," << f.second
          << "), witness steps " << formatSteps(f.schedule.steps()) << "\n";
  }
  for (const auto &[p, sigma] : en.races)
    if (!got.count(p))
      why << "  only the enumerator finds (" << p.first << "," << p.second
          << "), σ = " << formatSteps(sigma) << "\n";
  if (!r.unknowns.empty()) {
    why << "  " << r.unknowns.size() << " unknown queries, first ("
        << r.unknowns[0].first << "," << r.unknowns[0].second
        << "): " << r.unknowns[0].reason << "\n";
  }
  if (got != out->enumerated || !r.unknowns.empty()) {
    out->ok = false;
    out->message +=
        std::string("predictor (") + mode + ") = " + formatPairs(got) +
        "\nenumerator = " + formatPairs(out->enumerated) + "\n" + why.str();
  }
}

} // namespace

std::string formatPairs(const Pairs &p) {
  std::string s = "{";
  for (const auto &[a, b] : p)
    s += (s.size() > 1 ? " " : "") + std::string("(") + std::to_string(a) +
         "," + std::to_string(b) + ")";
  return s + "}";
}

ModelCheck checkAgainstModel(const std::string &text, bool reproducible,
                             bool alsoNoFilters) {
  ModelCheck out;
  std::istringstream in(text);
  auto parsed = trace::parseTextTrace(in, "random.rpt.txt");
  if (!parsed) {
    out.ok = false;
    out.message = "parse error: " + parsed.error().message + "\n";
  } else {
    const trace::Trace &t = *parsed;
    analysis::TraceIndex idx(t);
    EnumerationResult en = enumerateRaces(idx);
    out.states = en.states;
    for (const auto &[p, sigma] : en.races)
      out.enumerated.insert(p);
    if (en.truncated) {
      out.ok = false;
      out.message += "enumerator hit its state limit\n";
    }
    if (reproducible && !en.fullyReachable) {
      out.ok = false;
      out.message += "the observed order is not a schedule of the model "
                     "(generator or enumerator bug)\n";
    }
    // Every enumerator witness must also satisfy the schedule checker.
    for (const auto &[p, sigma] : en.races)
      if (auto err =
              analysis::checkRaceWitness(idx, sigma, p.first, p.second)) {
        out.ok = false;
        out.message += "schedule checker rejects the enumerator's witness " +
                       formatSteps(sigma) + " for (" + std::to_string(p.first) +
                       "," + std::to_string(p.second) + "): " + *err + "\n";
      }
    // The default pipeline (filters, closure fast path, solver); then the
    // solver deciding every candidate, so that the encoding itself is
    // compared and not only the fast path; then without the filters too.
    solver::RaceOptions o;
    o.allPairs = true;
    compare(solver::predictRaces(idx, o), en, "default", &out);
    o.noFastPath = true;
    compare(solver::predictRaces(idx, o), en, "no fast path", &out);
    if (alsoNoFilters) {
      o.noFilters = true;
      compare(solver::predictRaces(idx, o), en, "no fast path, no filters",
              &out);
    }
  }
  if (!out.ok)
    out.message = "trace:\n" + text + out.message;
  return out;
}

} // namespace racepredict::testsupport
