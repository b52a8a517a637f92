//===- test/model/property_model.h - Brute-force property violations ------===//
//
// The reference side of the property differential test, written from the
// definitions in docs/properties.md and independently of src/property's
// matcher and candidate finder and of the encoding: a plain matcher over
// names, every tuple of distinct events, and for each tuple a search of the
// enumerator's state space in product with a monitor that follows the
// pattern (test/support/enumerator.h, findObservedSchedule). Typestates are
// also checked against their automaton directly, per object.
//
#pragma once

#include "enumerator.h"

#include "racepredict/property/parser.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

namespace racepredict::testsupport {

/// (pattern index, events of the steps).
using Instances = std::set<std::pair<uint32_t, std::vector<EventId>>>;

/// Every instance of `prop`'s patterns that some prefix schedule exhibits.
/// `*truncated` is set when a search hit its state limit.
Instances enumerateViolations(const analysis::TraceIndex &idx,
                              const property::Property &prop, bool *truncated);

/// Typestate semantics on the automaton itself: the object values (names)
/// for which some prefix schedule drives the automaton of `d` into error,
/// the automaton reading that object's events in schedule order.
/// `objectVar` is the parameter naming the object.
std::set<std::string> enumerateTypestateErrors(const analysis::TraceIndex &idx,
                                               const property::TypestateDecl &d,
                                               bool *truncated);

} // namespace racepredict::testsupport
