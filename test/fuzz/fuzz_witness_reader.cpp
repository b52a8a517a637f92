//===- test/fuzz/fuzz_witness_reader.cpp - libFuzzer: witness files -------===//
//
// Any JSON against a fixed trace with locks, a condition wait, a barrier
// and a semaphore: the witness schema (report/witness_reader.h) accepts a
// witness or names the field, and checking an accepted one on the trace
// semantics ends in its steps or one sentence, never a crash — what
// `check-witness` and `replay --schedule` do with a file from anyone.
//
#include "fuzz_checks.h"

#include "racepredict/analysis/trace_index.h"
#include "racepredict/report/witness_reader.h"
#include "racepredict/trace/text_format.h"

#include <sstream>

using namespace racepredict;

namespace {

// 36 events: two workers under lock m, one waits on c for the other's
// signal, both meet at barrier b, a semaphore hand-off, locks p and q in
// opposite orders (a deadlock), races on z and y. seeds/witness/ holds
// what `analyze --races --deadlocks --all-pairs` says about it.
const char *kTrace = R"(t0 begin
t0 fork t1
t0 fork t2
t0 seminit s 0
t1 begin
t1 rd z 0
t1 acq m
t1 rd x 0
t2 begin
t2 wr z 1
t2 acq m
t2 wr x 1
t2 signal c
t2 rel m
t1 wait c m
t1 rel m
t1 barrier b 2
t2 barrier b 2
t2 post s
t2 acq q
t2 acq p
t2 rel p
t2 rel q
t1 semwait s
t1 acq p
t1 acq q
t1 rel q
t1 rel p
t1 br
t1 wr y 1
t1 end
t2 end
t0 rd y 1
t0 join t1
t0 join t2
t0 end
)";

const analysis::TraceIndex &index() {
  static trace::Trace t = [] {
    std::istringstream in(kTrace);
    auto parsed = trace::parseTextTrace(in, "fixed");
    fuzz::require(static_cast<bool>(parsed), "the fixed trace parses");
    return std::move(*parsed);
  }();
  static analysis::TraceIndex idx(t);
  return idx;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const analysis::TraceIndex &idx = index();
  nlohmann::json j =
      nlohmann::json::parse(data, data + size, nullptr, /*exceptions=*/false);
  if (j.is_discarded())
    return 0;
  auto ws = report::parseWitnesses(j, "fuzz.json");
  if (!ws) {
    fuzz::checkMessage(ws.error().message, "fuzz.json: ");
    return 0;
  }
  for (const report::WitnessSpec &w : *ws) {
    std::vector<analysis::BlockReason> reasons;
    auto steps = report::witnessSteps(idx, w, &reasons);
    if (!steps) {
      fuzz::checkMessage(steps.error().message, "");
      continue;
    }
    // An accepted witness is a valid schedule of the trace.
    fuzz::require(!analysis::checkPrefixSchedule(idx, *steps),
                  "accepted steps are not a valid schedule");
  }
  return 0;
}
