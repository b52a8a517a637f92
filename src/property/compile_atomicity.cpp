//===- property/compile_atomicity.cpp - Region atomicity to patterns
//-------===//
//
// A region BEGIN..END of one thread is meant to run atomically. Lu et al.
// (AVIO, ASPLOS 2006) show that for two consecutive accesses of the region
// to one location and one access of another thread interleaved between
// them, exactly five combinations are unserializable — no serial order of
// the region and the remote access gives the same values: R-W-R, W-W-R,
// R-W-W, W-R-W and W-W-W. Each becomes one sequence pattern:
//
//   t: BEGIN; [no t: END] t: A1(x); [no t: END, t: @access(x)] u: A2(x);
//       [no t: END, t: @access(x)] t: A3(x)
//
#include "racepredict/property/parser.h"

namespace racepredict::property {

namespace {

constexpr uint32_t kT = 0, kU = 1; // thread variables: region, remote

EventPattern access(const char *rw, uint32_t thread, uint32_t locVar) {
  using K = trace::EventKind;
  EventPattern p;
  p.cls = EventPattern::Builtin;
  p.name = rw;
  std::string n = rw;
  if (n == "read")
    p.kinds = {K::Read, K::AtomicRead, K::AtomicRmw};
  else if (n == "write")
    p.kinds = {K::Write, K::AtomicWrite, K::AtomicRmw};
  else
    p.kinds = {K::Read, K::Write, K::AtomicRead, K::AtomicWrite, K::AtomicRmw};
  Arg a;
  a.kind = Arg::Var;
  a.text = "$loc";
  a.var = locVar;
  p.args = {a};
  p.thread = thread;
  return p;
}

} // namespace

std::vector<Pattern> compileAtomicity(const AtomicDecl &d) {
  Pattern proto;
  proto.vars = d.vars;
  uint32_t loc = static_cast<uint32_t>(proto.vars.size());
  proto.vars.push_back("$loc");
  proto.threadVars = {"t", "u"};
  EventPattern begin = d.begin, end = d.end;
  begin.thread = end.thread = kT;
  EventPattern local = access("access", kT, loc);
  static const char *const kCombos[5][3] = {{"read", "write", "read"},
                                            {"write", "write", "read"},
                                            {"read", "write", "write"},
                                            {"write", "read", "write"},
                                            {"write", "write", "write"}};
  std::vector<Pattern> out;
  for (const auto &c : kCombos) {
    Pattern p = proto;
    p.steps = {begin, access(c[0], kT, loc), access(c[1], kU, loc),
               access(c[2], kT, loc)};
    p.gaps = {{}, {end}, {end, local}, {end, local}};
    p.origin = std::string("atomicity ") + (c[0][0] == 'r' ? "R" : "W") + "-" +
               (c[1][0] == 'r' ? "R" : "W") + "-" +
               (c[2][0] == 'r' ? "R" : "W");
    out.push_back(std::move(p));
  }
  return out;
}

} // namespace racepredict::property
