//===- report/witness_condense.h - The witness steps that matter ----------===//
//
// A witness of a real program holds thousands of steps (every constructor
// before main, every loop iteration of every thread); a developer needs a
// handful: the racing pair (or the blocked requests), the synchronisation
// the schedule had to reorder relative to the observed run, reads that keep
// their observed value although another thread's write moved around them,
// and the last steps of each involved thread. Everything else is folded
// into one line per thread of each run between two shown steps ("… 4,980
// steps of t1 in deflate_stored, pigz.c:1021–1090 …"). The text report
// and the HTML view both show this; JSON and witness files keep every step.
//
#pragma once

#include "racepredict/trace/trace.h"

#include <cstddef>
#include <string>
#include <vector>

namespace racepredict::report {

/// Why a step is shown (strongest reason first).
enum class StepRole : uint8_t {
  Hidden,    ///< folded away
  Essential, ///< a racing access, a blocked request, a violating event
  Last,      ///< one of the last steps of an involved thread
  Sync,      ///< synchronisation in another order than observed
  Read,      ///< a read another thread's write moved around: same value
  Context,   ///< a lone step between two shown ones (cheaper than a fold)
};
const char *stepRoleName(StepRole r);

/// One run of folded steps of one thread between two shown steps.
struct Fold {
  trace::ThreadId thread = 0;
  size_t steps = 0;          ///< how many steps of `thread`
  size_t firstStep = 0;      ///< the run's first and last witness step
  size_t lastStep = 0;       ///< (of any thread: the gap it belongs to)
  std::string function;      ///< where most of them are (short name)
  std::string file;          ///< that function's file (base name)
  uint32_t firstLine = 0;    ///< line range of the function's steps
  uint32_t lastLine = 0;     ///< (0: no line known)
  size_t otherFunctions = 0; ///< further functions among the steps
};

/// One line of the condensed witness: a shown step or a fold.
struct WitnessLine {
  bool folded = false;
  size_t step = 0; ///< shown: index into the witness
  StepRole role = StepRole::Hidden;
  Fold fold; ///< folded
};

struct CondenseOptions {
  size_t maxLines = 40;     ///< the whole witness section's budget
  size_t lastPerThread = 3; ///< last steps of each involved thread
};

/// The steps of `steps` that are the finding's `events`; for an event the
/// schedule does not contain (a deadlock's blocked request never
/// completes), the last step of its thread instead.
std::vector<bool> essentialSteps(const trace::Trace &t,
                                 const std::vector<trace::EventId> &steps,
                                 const std::vector<trace::EventId> &events);

/// Each step's role: `essential[i]` marks the finding's own steps.
std::vector<StepRole> witnessRoles(const trace::Trace &t,
                                   const std::vector<trace::EventId> &steps,
                                   const std::vector<bool> &essential,
                                   const CondenseOptions &o = {});

/// The condensed witness: shown steps in order, runs between them folded,
/// within o.maxLines (essential steps are always shown).
std::vector<WitnessLine>
condenseWitness(const trace::Trace &t, const std::vector<trace::EventId> &steps,
                const std::vector<bool> &essential,
                const CondenseOptions &o = {});

/// "… 4,980 steps of t1 in deflate_stored, pigz.c:1021–1090 …".
std::string foldText(const trace::Trace &t, const Fold &f);

/// 4980 → "4,980".
std::string withThousands(size_t n);

} // namespace racepredict::report
