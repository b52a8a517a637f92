//===- solver/piece_races.h - Races decided on pieces, named as recorded --===//
#pragma once

#include "racepredict/analysis/access_pieces.h"
#include "racepredict/solver/race_predictor.h"

namespace racepredict::solver {

/// Races decided on the trace with pieces (analysis/access_pieces.h) as
/// races of the recorded events: one finding per recorded pair, its
/// witness naming recorded events, each access whole at one step
/// (analysis::recordedRaceWitness, checked on the pieces); a pair whose
/// witnesses all need an access torn apart is `unknown`, never a race.
void piecesToRecorded(RaceResult &r, const analysis::AccessPieces &p,
                      const analysis::TraceIndex &pieceIndex);

/// The races of `t`, decided on its pieces when there are some, named by
/// t's events.
RaceResult predictRacesInPieces(const trace::Trace &t, const RaceOptions &opts);
/// The same, with `t`'s names, sources and stacks lent to the pieces while
/// the races are decided instead of copied (a copy of a large trace's names
/// is hundreds of MB), then given back: `t`'s location table then also
/// holds the pieces' names (after its own: no id of `t` changes).
RaceResult predictRacesInPiecesLending(trace::Trace &t, bool split,
                                       const RaceOptions &opts);

} // namespace racepredict::solver
