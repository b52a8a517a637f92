//===- property/builtins.cpp - The `@kind` event classes ------------------===//
#include "builtins.h"

#include <map>

namespace racepredict::property {

using trace::EventKind;

namespace {

/// `@name` event classes: trace ops (DESIGN.md mnemonics) and groups.
const std::map<std::string, std::vector<EventKind>> &table() {
  using K = EventKind;
  static const std::map<std::string, std::vector<EventKind>> kinds = {
      {"begin", {K::Begin}},
      {"end", {K::End}},
      {"fork", {K::Fork}},
      {"join", {K::Join}},
      {"acq", {K::Acquire}},
      {"racq", {K::RAcquire}},
      {"lock", {K::Acquire, K::RAcquire}},
      {"rel", {K::Release}},
      {"tryfail", {K::TryFail}},
      {"wait", {K::Wait}},
      {"signal", {K::Signal}},
      {"broadcast", {K::Broadcast}},
      {"notify", {K::Signal, K::Broadcast}},
      {"barrier", {K::Barrier}},
      {"seminit", {K::SemInit}},
      {"post", {K::SemPost}},
      {"semwait", {K::SemWait}},
      {"rd", {K::Read}},
      {"wr", {K::Write}},
      {"ard", {K::AtomicRead}},
      {"awr", {K::AtomicWrite}},
      {"armw", {K::AtomicRmw}},
      {"read", {K::Read, K::AtomicRead, K::AtomicRmw}},
      {"write", {K::Write, K::AtomicWrite, K::AtomicRmw}},
      {"access",
       {K::Read, K::Write, K::AtomicRead, K::AtomicWrite, K::AtomicRmw}},
      {"br", {K::Branch}},
      {"alloc", {K::Alloc}},
      {"free", {K::Free}},
      {"ev", {K::Custom}},
      {"send", {K::Send}},
      {"recv", {K::Recv}},
  };
  return kinds;
}

} // namespace

const std::vector<EventKind> *builtinKinds(const std::string &name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

} // namespace racepredict::property
