//===- property/property.cpp - Printing compiled properties ---------------===//
#include "racepredict/property/property.h"

namespace racepredict::property {

const char *kindName(Property::Kind k) {
  switch (k) {
  case Property::Forbid:
    return "forbid";
  case Property::Typestate:
    return "typestate";
  case Property::Atomicity:
    return "atomicity";
  }
  return "?";
}

std::string toString(const EventPattern &p, const Pattern &owner) {
  std::string s;
  if (p.thread != kNone && p.thread < owner.threadVars.size())
    s += owner.threadVars[p.thread] + ": ";
  if (p.cls == EventPattern::Any)
    return s + "*";
  if (p.cls == EventPattern::Builtin)
    s += "@";
  s += p.name;
  if (p.args.empty())
    return s;
  s += "(";
  for (size_t i = 0; i < p.args.size(); ++i) {
    const Arg &a = p.args[i];
    if (i)
      s += ", ";
    s += a.kind == Arg::Wildcard ? "_" : a.text;
  }
  return s + ")";
}

std::string toString(const Pattern &p) {
  std::string s;
  for (size_t i = 0; i < p.steps.size(); ++i) {
    if (i)
      s += "; ";
    if (!p.gaps[i].empty()) {
      s += "[no ";
      for (size_t g = 0; g < p.gaps[i].size(); ++g)
        s += (g ? ", " : "") + toString(p.gaps[i][g], p);
      s += "] ";
    }
    s += toString(p.steps[i], p);
  }
  return s;
}

} // namespace racepredict::property
