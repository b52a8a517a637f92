//===- test/model/property_differential_test.cpp - Violations vs brute force =//
//
// On random small traces with custom events and random properties (random
// forbidden sequences with gaps and thread labels, random typestates,
// region atomicity), the SMT predictor (every instance, zero unknowns, with
// and without the must-happen-before pruning) finds exactly the pattern
// instances that the brute-force search of property_model.h finds; for
// typestates, the objects it reports are exactly those whose automaton the
// search drives into `error`. RACEPREDICT_MODEL_SCALE=N runs N times more.
//
#include "property_model.h"
#include "random_trace.h"

#include "racepredict/solver/property_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>

using namespace racepredict;
using namespace racepredict::testsupport;

namespace {

class PropertyGen {
public:
  explicit PropertyGen(uint64_t seed) : rng_(seed) {}

  std::string forbid(const std::string &name) {
    int k = chance(1, 5) ? 1 : chance(1, 2) ? 2 : 3;
    std::vector<std::string> labels, steps;
    for (int i = 0; i < k; ++i) {
      std::string label;
      if (chance(1, 3)) {
        label = pick(2) ? "t1" : "t2";
        labels.push_back(label);
      }
      steps.push_back((label.empty() ? "" : label + ": ") + event(false));
    }
    std::string s = "property " + name + "(f):\n    forbid ";
    for (int i = 0; i < k; ++i) {
      if (i)
        s += "; ";
      if (chance(2, 5)) {
        s += "[no ";
        int items = 1 + static_cast<int>(pick(2));
        for (int j = 0; j < items; ++j) {
          if (j)
            s += ", ";
          if (!labels.empty() && chance(1, 3)) {
            s += labels[pick(labels.size())] + ": ";
            s += chance(1, 2) ? "*" : event(true);
          } else {
            s += event(true);
          }
        }
        s += chance(1, 4) ? " until end]" : "]";
        s += " ";
      }
      s += steps[i];
    }
    return s + "\n";
  }

  /// A typestate whose every event is a setter or an observer.
  std::string typestate(const std::string &name) {
    const char *states[] = {"s0", "s1", "s2"};
    std::string s = "property " + name + "(f):\n    start s0\n";
    int nstates = 2 + static_cast<int>(pick(2));
    bool any = false;
    for (const char *label : {"a(f)", "b(f)", "c(f)"}) {
      bool observer = chance(1, 3);
      int target = static_cast<int>(pick(nstates));
      for (int q = 0; q < nstates; ++q) {
        if (!chance(2, 3))
          continue; // implicit error
        any = true;
        s += std::string("    ") + states[q] + " -> " +
             states[observer ? q : target] + " on " + label + "\n";
      }
    }
    if (!any)
      s += "    s0 -> s1 on a(f)\n";
    return s;
  }

  std::string atomic(const std::string &name) {
    if (chance(1, 2))
      return "property " + name + ":\n    atomic a .. b\n";
    return "property " + name + "(f):\n    atomic a(f) .. b(f)\n";
  }

private:
  uint64_t pick(uint64_t n) { return n <= 1 ? 0 : rng_() % n; }
  bool chance(int num, int den) {
    return static_cast<int>(pick(static_cast<uint64_t>(den))) < num;
  }
  std::string event(bool inGap) {
    static const char *const kCustomArgs[] = {"",    "",     "(f)", "(f)",
                                              "(f)", "(o1)", "(_)", "(f, o2)"};
    static const char *const kBuiltins[] = {"@wr(x)",  "@rd(f)",  "@write(y)",
                                            "@acq(l)", "@rel(l)", "@access(x)"};
    if (chance(1, inGap ? 3 : 5))
      return kBuiltins[pick(6)];
    return std::string(1, "abc"[pick(3)]) + kCustomArgs[pick(8)];
  }

  std::mt19937_64 rng_;
};

std::string format(const Instances &s) {
  std::string out = "{";
  for (const auto &[p, evs] : s) {
    out += " p" + std::to_string(p) + ":(";
    for (size_t i = 0; i < evs.size(); ++i)
      out += (i ? "," : "") + std::to_string(evs[i]);
    out += ")";
  }
  return out + " }";
}

size_t gSolverCalls = 0, gSat = 0, gObserved = 0;

/// Checks every property of `props` on one trace; returns the number of
/// properties that have at least one violation, or -1 on a mismatch.
int checkTrace(const std::string &traceText, const std::string &propText,
               bool noFilters, uint64_t seed) {
  std::istringstream in(traceText);
  auto t = trace::parseTextTrace(in, "random.rpt.txt");
  if (!t) {
    ADD_FAILURE() << "seed " << seed << ": " << t.error().message;
    return -1;
  }
  auto props = property::parseProperties(propText, "random.props");
  if (!props) {
    ADD_FAILURE() << "seed " << seed << ": " << props.error().message << "\n"
                  << propText;
    return -1;
  }
  analysis::TraceIndex idx(*t);
  solver::PropertyOptions o;
  o.allInstances = true;
  o.noFilters = noFilters;
  solver::PropertyResult r = solver::predictViolations(idx, *props, o);
  gSolverCalls += r.stats.solverCalls;
  gSat += r.stats.sat;
  gObserved += r.stats.observed;
  int violated = 0;
  for (uint32_t pi = 0; pi < props->size(); ++pi) {
    const property::Property &prop = (*props)[pi];
    Instances got, want;
    std::set<std::string> gotObjects;
    for (const auto &v : r.violations)
      if (v.property == pi) {
        got.insert({v.pattern, v.events});
        for (const auto &[var, val] : v.binding)
          if (var == "f")
            gotObjects.insert(val);
      }
    bool cut = false;
    want = enumerateViolations(idx, prop, &cut);
    std::string where = "seed " + std::to_string(seed) + ", property " +
                        prop.name + (noFilters ? " (no filters)" : "") +
                        "\ntrace:\n" + traceText + "properties:\n" + propText;
    EXPECT_FALSE(cut) << where;
    EXPECT_TRUE(r.unknowns.empty())
        << where << "\nunknown: " << r.unknowns[0].reason;
    if (got != want) {
      std::string pats;
      for (const auto &p : prop.patterns)
        pats += "  " + property::toString(p) + "\n";
      ADD_FAILURE() << where << "patterns:\n"
                    << pats << "predictor  = " << format(got)
                    << "\nenumerator = " << format(want);
      return -1;
    }
    if (prop.kind == property::Property::Typestate) {
      // Re-parse the declaration for the automaton-level check.
      property::TypestateDecl d;
      d.vars = prop.params;
      std::istringstream lines(propText);
      std::string line, cur;
      while (std::getline(lines, line)) {
        if (line.rfind("property ", 0) == 0)
          cur = line.substr(9, line.find('(') - 9);
        if (cur != prop.name)
          continue;
        std::istringstream ls(line);
        std::string from, arrow, to, on, label;
        if (line.find("start ") != std::string::npos)
          ls >> on >> d.start;
        else if (ls >> from >> arrow >> to >> on >> label && arrow == "->") {
          property::Transition tr;
          tr.from = from;
          tr.to = to;
          tr.label.name = label.substr(0, 1);
          property::Arg a;
          a.kind = property::Arg::Var;
          a.var = 0;
          a.text = "f";
          tr.label.args = {a};
          d.transitions.push_back(tr);
        }
      }
      std::set<std::string> objects = enumerateTypestateErrors(idx, d, &cut);
      EXPECT_EQ(gotObjects, objects) << where;
    }
    violated += !got.empty();
  }
  return violated;
}

void runMix(const TraceFeatures &f, uint64_t seedBase, int count) {
  RandomTraceOptions o;
  o.features = f;
  o.features.customs = true;
  o.minEvents = 12;
  o.maxEvents = 22;
  o.maxLocations = 2;
  count *= modelScale();
  int failures = 0, violatedProps = 0, props = 0;
  for (int i = 0; i < count && failures < 3; ++i) {
    uint64_t seed = seedBase + static_cast<uint64_t>(i);
    RandomTrace rt = randomTrace(seed, o);
    PropertyGen g(seed * 7919 + 17);
    std::string text = g.forbid("p1") + g.forbid("p2") +
                       (i % 2 ? g.typestate("ts") : g.atomic("at"));
    int v = checkTrace(rt.text, text, i % 3 == 0, seed);
    if (v < 0)
      ++failures;
    else
      violatedProps += v;
    props += 3;
  }
  EXPECT_EQ(failures, 0);
  // The mix must stay interesting: many properties are violated, many not.
  EXPECT_GT(violatedProps, props / 5);
  EXPECT_LT(violatedProps, props * 4 / 5);
  std::printf("[ mix      ] %d traces, %d of %d properties violated; %zu "
              "queries, %zu sat, %zu observed\n",
              count, violatedProps, props, gSolverCalls, gSat, gObserved);
  gSolverCalls = gSat = gObserved = 0;
}

} // namespace

TEST(PropertyDifferential, CustomEventsReadsWritesLocks) {
  TraceFeatures f;
  runMix(f, 20000000, 1000);
}

TEST(PropertyDifferential, WithSynchronisation) {
  TraceFeatures f;
  f.condvars = f.semaphores = f.precise = f.atomics = true;
  runMix(f, 21000000, 800);
}

// Issue 20: violations under write dependences (reads that need not keep
// their values, writes that then carry ⊥).
TEST(PropertyDifferential, WriteDependences) {
  TraceFeatures f;
  f.condvars = f.precise = f.writeDeps = true;
  runMix(f, 22000000, 600);
}
