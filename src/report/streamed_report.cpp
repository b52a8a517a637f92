//===- report/streamed_report.cpp - The JSON report, finding by finding ---===//
#include "racepredict/report/streamed_report.h"

#include <ostream>

namespace racepredict::report {

using json = nlohmann::ordered_json;

namespace {

/// `events(f)` calls f with each event of the witness, `steps(f)` with each
/// of its steps.
template <typename Events, typename Steps>
void writeEntry(JsonWriter &w, const json &entry, const Events &events,
                const Steps &steps) {
  w.object(entry, {{"witness",
                    [&](JsonWriter &out) {
                      out.beginArray();
                      events([&](trace::EventId e) { out.number(e); });
                      out.end();
                    }},
                   // As stepsJson.
                   {"steps", [&](JsonWriter &out) {
                      out.beginArray();
                      steps([&](const analysis::Step &s) {
                        out.beginObject();
                        out.key("event");
                        out.number(s.event);
                        out.key("half");
                        out.boolean(s.half);
                        out.end();
                      });
                      out.end();
                    }}});
}

} // namespace

void writeFindingEntry(JsonWriter &w, const json &entry,
                       const std::vector<trace::EventId> &witness,
                       const std::vector<analysis::Step> &steps) {
  writeEntry(
      w, entry,
      [&](const auto &f) {
        for (trace::EventId e : witness)
          f(e);
      },
      [&](const auto &f) {
        for (const analysis::Step &s : steps)
          f(s);
      });
}

void writeFindingEntry(JsonWriter &w, const json &entry,
                       const analysis::WitnessSchedule &schedule) {
  // Walked, not expanded: most of it is shared with other findings.
  writeEntry(
      w, entry,
      [&](const auto &f) {
        schedule.forEach([&](const analysis::Step &s) {
          if (!s.half)
            f(s.event);
        });
      },
      [&](const auto &f) { schedule.forEach(f); });
}

namespace {

void writeEntryOf(JsonWriter &w, const json &e, const solver::RaceFinding &f) {
  writeFindingEntry(w, e, f.schedule);
}
template <typename Finding>
void writeEntryOf(JsonWriter &w, const json &e, const Finding &f) {
  writeFindingEntry(w, e, f.witness, f.steps);
}

/// A fill writing one entry per finding of `all`: `entry(x)` builds it
/// without its witness, `decorate` completes it.
template <typename Finding, typename Entry>
JsonWriter::Fill entries(const std::vector<Finding> &all, Entry entry,
                         const std::function<void(size_t, json &)> &decorate) {
  return [&all, entry, &decorate](JsonWriter &w) {
    w.beginArray();
    for (size_t i = 0; i < all.size(); ++i) {
      json e = entry(all[i]);
      if (decorate)
        decorate(i, e);
      writeEntryOf(w, e, all[i]);
    }
    w.end();
  };
}

} // namespace

void writeStreamedReport(std::ostream &out, const trace::Trace &t,
                         const json &doc, const StreamedFindings &f) {
  JsonWriter::Fills fills;
  if (f.races)
    fills.emplace_back("races", entries(
                                    f.races->races,
                                    [&t](const solver::RaceFinding &r) {
                                      return raceJson(t, r, false);
                                    },
                                    f.decorateRace));
  if (f.deadlocks)
    fills.emplace_back("deadlocks", entries(
                                        f.deadlocks->deadlocks,
                                        [&t](const solver::DeadlockFinding &d) {
                                          return deadlockJson(t, d, false);
                                        },
                                        f.decorateDeadlock));
  if (f.violations)
    fills.emplace_back("violations",
                       entries(
                           f.violations->violations,
                           [&t, &f](const solver::ViolationFinding &v) {
                             return violationJson(t, v, *f.properties, false);
                           },
                           f.decorateViolation));
  {
    JsonWriter w(out);
    w.object(doc, fills);
  }
  out << "\n";
}

} // namespace racepredict::report
