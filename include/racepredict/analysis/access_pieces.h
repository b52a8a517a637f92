//===- analysis/access_pieces.h - Accesses of different sizes, byte-exact -===//
//
// The model's location is one value (docs/semantics.md), and a recorded
// access names its location by its address. Programs access the same bytes
// with different widths: libstdc++'s shared_ptr release reads both 4-byte
// counts with one 8-byte atomic load; a struct memcpy'd in 8-byte chunks
// has its name read byte by byte by strlen. Taken as whole locations, such
// accesses neither conflict (lost races) nor pass values (the 8-byte load
// sees no write of its value: the reader starts a new location there, and
// whatever it synchronised is lost: false races).
//
// The pieces of a group of overlapping accesses are the maximal byte ranges
// no access boundary cuts (every access is a union of pieces). On the
// trace with pieces, each access is one event per piece, consecutive in its
// thread, each with the little-endian bytes of the recorded value (sign-
// extended as the recorder extends values); two accesses conflict iff they
// share a byte, and a read gets its value from the writes of its bytes.
// Only groups that several threads touch and that mix ranges are split
// (one thread's memory reads its own writes in every schedule: nothing to
// gain); a trace without them has no pieces (nullopt) and is analysed as
// recorded. A recorded access is atomic: a witness names recorded events,
// each standing for all of its pieces at one point of the schedule
// (toRecorded / toPieces), and is checked that way (checkRecordedRace).
//
#pragma once

#include "racepredict/analysis/schedule_checker.h"
#include "racepredict/analysis/trace_index.h"
#include "racepredict/trace/trace.h"

#include <optional>
#include <string>
#include <vector>

namespace racepredict::analysis {

struct AccessPieces {
  trace::Trace trace;            ///< every access of a split group in pieces
  std::vector<EventId> original; ///< event of `trace` -> recorded event
  /// Recorded event e is events [first[e], first[e+1]) of `trace`.
  std::vector<EventId> first;
  size_t splitAccesses = 0; ///< recorded accesses cut into pieces
  size_t groups = 0;        ///< groups of overlapping accesses split

  size_t piecesOf(EventId e) const { return first[e + 1] - first[e]; }
  /// A schedule of recorded events as one of pieces: each event's pieces
  /// together, in address order.
  std::vector<Step> toPieces(const std::vector<Step> &steps) const;
};

/// The trace with pieces, or nullopt when no group of accesses of several
/// threads mixes byte ranges (then nothing changes). Needs access sizes
/// (binary traces; text traces have none and are never split) and a trace
/// in observed order (as recorded: a read that sees bytes no recorded write
/// wrote starts a new name for that piece, as trace/hidden_writes.cpp does
/// for whole locations).
std::optional<AccessPieces> splitOverlappingAccesses(const trace::Trace &t);
/// The same, with t's names, sources and stacks lent to the pieces' trace
/// instead of copied (a copy of a large trace's names is hundreds of MB);
/// t keeps its events, and giveBackTables returns the tables.
std::optional<AccessPieces> splitOverlappingAccessesLending(trace::Trace &t);
/// Moves the tables splitOverlappingAccessesLending lent back to `t`: its
/// location table then also holds the pieces' names, after its own (no id
/// of `t` changes). `p.trace` keeps its events, without those tables.
void giveBackTables(AccessPieces &p, trace::Trace &t);

/// Per location of `t`, whether splitOverlappingAccesses cuts its accesses
/// (empty when it cuts none). The thread-local reduction keeps them
/// (reduceThreadLocal's `shared`): its trace then has the same groups, and
/// is split instead of the whole trace (issue 17: a copy of a 118M-event
/// trace is what the memory budget has no room for).
std::vector<bool> overlappingLocations(const trace::Trace &t);

/// A trace's pieces and their index, to check witnesses of its recorded
/// events (check-witness, replay).
struct PieceIndex {
  explicit PieceIndex(AccessPieces p)
      : pieces(std::move(p)), index(pieces.trace) {}
  PieceIndex(const PieceIndex &) = delete;
  PieceIndex &operator=(const PieceIndex &) = delete;
  AccessPieces pieces;
  TraceIndex index;
};

/// The race (a, b) of recorded events on the trace with pieces: `sigma`
/// (recorded events) with each event's pieces together, then the pieces of
/// a and of b, the two that share a byte last. nullopt when valid, else why
/// (checkRaceWitness on the pieces).
std::optional<std::string> checkRecordedRace(const AccessPieces &p,
                                             const TraceIndex &pieceIndex,
                                             const std::vector<Step> &sigma,
                                             EventId a, EventId b);

/// The race witness of recorded events for the race (a, b) of pieces that
/// `steps` witnesses on the trace with pieces (ending with a, b): each
/// recorded event at the first or at the last of its pieces in `steps` (an
/// event with only some pieces there kept whole or left out), whichever
/// checkRecordedRace accepts first; nullopt if none is (the witness needs
/// one access torn apart, which no run does).
std::optional<std::vector<Step>>
recordedRaceWitness(const AccessPieces &p, const TraceIndex &pieceIndex,
                    const std::vector<Step> &steps);

} // namespace racepredict::analysis
