//===- analysis/access_pieces_witness.cpp - Witnesses of recorded accesses
//===//
//
// A recorded access is one step of a run: on the trace with pieces
// (analysis/access_pieces.h) its pieces run together, so a witness found
// there, where another thread may step between two pieces of one access,
// is a witness of the recorded events only once each access is whole
// again somewhere, and that placement passes the schedule checker.
//
#include "racepredict/analysis/access_pieces.h"

#include "racepredict/analysis/trace_index.h"

namespace racepredict::analysis {

std::vector<Step> AccessPieces::toPieces(const std::vector<Step> &steps) const {
  std::vector<Step> out;
  out.reserve(steps.size());
  for (const Step &s : steps)
    for (EventId k = first[s.event]; k < first[s.event + 1]; ++k)
      out.push_back({k, s.half});
  return out;
}

std::optional<std::string> checkRecordedRace(const AccessPieces &p,
                                             const TraceIndex &pieceIndex,
                                             const std::vector<Step> &sigma,
                                             EventId a, EventId b) {
  const trace::Trace &t = p.trace;
  // The racing pieces: the first of a's that shares a location with one of
  // b's (every piece of an access is the same kind, so any shared one
  // conflicts as the recorded pair does).
  EventId x = kNone, y = kNone;
  for (EventId i = p.first[a]; i < p.first[a + 1] && x == kNone; ++i)
    for (EventId j = p.first[b]; j < p.first[b + 1]; ++j)
      if (!trace::isAccess(t.events[i].kind) ||
          !trace::isAccess(t.events[j].kind) ||
          t.events[i].obj == t.events[j].obj) {
        x = i;
        y = j;
        break;
      }
  if (x == kNone)
    return "events " + std::to_string(a) + " and " + std::to_string(b) +
           " access no byte in common";
  std::vector<Step> prefix = p.toPieces(sigma);
  for (EventId i = p.first[a]; i < x; ++i)
    prefix.push_back({i, false});
  for (EventId j = p.first[b]; j < y; ++j)
    prefix.push_back({j, false});
  return checkRaceWitness(pieceIndex, prefix, x, y);
}

namespace {

/// `steps` (pieces, the racing pair excluded) as recorded events: each at
/// the first or last of its pieces there; one with only some of its pieces
/// there whole, or not at all.
std::vector<Step> collapse(const AccessPieces &p,
                           const std::vector<Step> &steps, EventId a, EventId b,
                           bool atLast, bool dropPartial) {
  std::vector<uint32_t> seen(p.first.size(), 0), total(p.first.size(), 0);
  for (const Step &s : steps)
    if (!s.half)
      ++total[p.original[s.event]];
  std::vector<Step> out;
  for (const Step &s : steps) {
    EventId e = p.original[s.event];
    if (e == a || e == b)
      continue; // whole at the end
    if (s.half) {
      out.push_back({e, true});
      continue;
    }
    uint32_t n = ++seen[e];
    if (dropPartial && total[e] < p.piecesOf(e))
      continue;
    if (atLast ? n == total[e] : n == 1)
      out.push_back({e, false});
  }
  return out;
}

} // namespace

std::optional<std::vector<Step>>
recordedRaceWitness(const AccessPieces &p, const TraceIndex &pieceIndex,
                    const std::vector<Step> &steps) {
  EventId a = p.original[steps[steps.size() - 2].event];
  EventId b = p.original[steps.back().event];
  std::vector<Step> prefix(steps.begin(), steps.end() - 2);
  for (bool dropPartial : {false, true})
    for (bool atLast : {false, true}) {
      std::vector<Step> sigma = collapse(p, prefix, a, b, atLast, dropPartial);
      if (!checkRecordedRace(p, pieceIndex, sigma, a, b)) {
        sigma.push_back({a, false});
        sigma.push_back({b, false});
        return sigma;
      }
    }
  return std::nullopt;
}

} // namespace racepredict::analysis
