//===- solver/encode/piece_races.cpp - Races decided on pieces, as recorded
//===//
#include "racepredict/solver/piece_races.h"

#include <set>
#include <utility>

namespace racepredict::solver {

void piecesToRecorded(RaceResult &r, const analysis::AccessPieces &p,
                      const analysis::TraceIndex &pieceIndex) {
  using Pair = std::pair<trace::EventId, trace::EventId>;
  auto recorded = [&](trace::EventId a, trace::EventId b) {
    a = p.original[a];
    b = p.original[b];
    return a < b ? Pair{a, b} : Pair{b, a};
  };
  std::set<Pair> found, torn;
  std::vector<RaceFinding> races;
  for (RaceFinding &f : r.races) {
    Pair ab = recorded(f.first, f.second);
    if (found.count(ab))
      continue;
    auto w = analysis::recordedRaceWitness(p, pieceIndex, f.schedule.steps());
    if (!w) {
      torn.insert(ab);
      continue;
    }
    found.insert(ab);
    torn.erase(ab);
    races.push_back({ab.first, ab.second, analysis::WitnessSchedule(*w)});
  }
  r.races = std::move(races);
  std::vector<UnknownPair> unknowns;
  std::set<Pair> listed;
  for (const UnknownPair &u : r.unknowns) {
    Pair ab = recorded(u.first, u.second);
    if (!found.count(ab) && listed.insert(ab).second)
      unknowns.push_back({ab.first, ab.second, u.reason});
  }
  for (const Pair &ab : torn)
    if (!found.count(ab) && listed.insert(ab).second)
      unknowns.push_back({ab.first, ab.second,
                          "every witness tears an access of different-sized "
                          "pieces apart"});
  r.unknowns = std::move(unknowns);
  r.stats.events = p.first.size() - 1;
}

namespace {

RaceResult decide(const trace::Trace &t,
                  const std::optional<analysis::AccessPieces> &pieces,
                  const RaceOptions &opts) {
  analysis::TraceIndex idx(pieces ? pieces->trace : t);
  RaceResult r = predictRaces(idx, opts);
  if (pieces)
    piecesToRecorded(r, *pieces, idx);
  return r;
}

} // namespace

RaceResult predictRacesInPieces(const trace::Trace &t,
                                const RaceOptions &opts) {
  return decide(t, analysis::splitOverlappingAccesses(t), opts);
}

RaceResult predictRacesInPiecesLending(trace::Trace &t, bool split,
                                       const RaceOptions &opts) {
  std::optional<analysis::AccessPieces> pieces;
  if (split)
    pieces = analysis::splitOverlappingAccessesLending(t);
  RaceResult r = decide(t, pieces, opts);
  if (pieces)
    analysis::giveBackTables(*pieces, t);
  return r;
}

} // namespace racepredict::solver
