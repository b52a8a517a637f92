//===- report/witness_reader.cpp - One schema for witnesses, read strictly ===//
#include "racepredict/report/witness_reader.h"

#include "racepredict/support/file_io.h"

#include <algorithm>

namespace racepredict::report {

using json = nlohmann::json;
using analysis::Step;

const char *witnessKindName(WitnessKind k) {
  switch (k) {
  case WitnessKind::Race:
    return "race";
  case WitnessKind::Deadlock:
    return "deadlock";
  case WitnessKind::Violation:
    return "violation";
  }
  RACEPREDICT_UNREACHABLE("witness kind");
}

namespace {

/// Reads the fields of one JSON object; the first problem is kept, so a
/// parser reads on and checks once (as the binary reader's Fields do).
class Reader {
public:
  explicit Reader(std::string where) : where_(std::move(where)) {}
  bool ok() const { return !error_; }
  Error error() const { return *error_; }

  void fail(const std::string &field, const std::string &msg) {
    if (!error_)
      error_ = Error{where_ + ": " + field + ": " + msg};
  }

  /// The member `key` of `obj` (`field` is its path, for messages); null
  /// when absent (an error if required) or when `obj` is no object.
  const json *member(const json &obj, const char *key, const std::string &field,
                     bool required) {
    if (!obj.is_object()) {
      fail(field, "expected an object, got " + typeName(obj));
      return nullptr;
    }
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required)
        fail(field, "missing");
      return nullptr;
    }
    return &*it;
  }

  /// An event index: an integer from 0 to 2^32 - 2.
  EventId event(const json *v, const std::string &field) {
    if (!v)
      return 0;
    bool inRange = false;
    if (v->is_number_unsigned())
      inRange = v->get<uint64_t>() < analysis::kNone;
    else if (v->is_number_integer())
      inRange = false; // negative: nlohmann reads non-negatives as unsigned
    if (!inRange) {
      fail(field, v->dump() + " is not an event index");
      return 0;
    }
    return static_cast<EventId>(v->get<uint64_t>());
  }
  /// The event index `obj.key` (nothing when `obj` is missing: already
  /// an error).
  EventId event(const json *obj, const char *key, const std::string &field) {
    return obj ? event(member(*obj, key, field, true), field) : 0;
  }

  std::vector<EventId> events(const json *v, const std::string &field) {
    std::vector<EventId> out;
    if (!v)
      return out;
    if (!v->is_array()) {
      fail(field, "expected a list of event indices, got " + typeName(*v));
      return out;
    }
    for (size_t i = 0; i < v->size() && ok(); ++i)
      out.push_back(event(&(*v)[i], field + "[" + std::to_string(i) + "]"));
    return out;
  }

  const json *array(const json *v, const std::string &field) {
    if (v && !v->is_array()) {
      fail(field, "expected a list, got " + typeName(*v));
      return nullptr;
    }
    return v;
  }

  std::optional<bool> boolean(const json *v, const std::string &field) {
    if (!v)
      return std::nullopt;
    if (!v->is_boolean()) {
      fail(field, "expected true or false, got " + v->dump());
      return std::nullopt;
    }
    return v->get<bool>();
  }

  std::string string(const json *v, const std::string &field) {
    if (!v)
      return "";
    if (!v->is_string()) {
      fail(field, "expected a string, got " + typeName(*v));
      return "";
    }
    return v->get<std::string>();
  }

  static std::string typeName(const json &v) {
    return v.is_number() ? "the number " + v.dump() : v.type_name();
  }

private:
  std::string where_;
  std::optional<Error> error_;
};

std::optional<analysis::BlockKind> blockKindOf(const std::string &name) {
  using analysis::BlockKind;
  for (BlockKind k :
       {BlockKind::Lock, BlockKind::Join, BlockKind::NotCreated,
        BlockKind::Notify, BlockKind::Semaphore, BlockKind::Barrier})
    if (name == analysis::blockKindName(k))
      return k;
  return std::nullopt;
}

void readSteps(Reader &r, const json &j, WitnessSpec &w) {
  const json *steps = r.array(r.member(j, "steps", "steps", false), "steps");
  if (!steps)
    return;
  w.steps.emplace();
  for (size_t i = 0; i < steps->size() && r.ok(); ++i) {
    std::string f = "steps[" + std::to_string(i) + "]";
    const json &s = (*steps)[i];
    EventId e = r.event(&s, "event", f + ".event");
    bool half =
        r.boolean(r.member(s, "half", f, false), f + ".half").value_or(false);
    w.steps->push_back({e, half});
  }
}

void readDeadlock(Reader &r, const json &j, WitnessSpec &w) {
  const json *blocked =
      r.array(r.member(j, "blocked", "blocked", true), "blocked");
  if (blocked && blocked->empty())
    r.fail("blocked", "no blocked thread");
  for (size_t i = 0; blocked && i < blocked->size() && r.ok(); ++i) {
    std::string f = "blocked[" + std::to_string(i) + "]";
    const json &b = (*blocked)[i];
    WitnessBlock blk;
    blk.event = r.event(&b, "event", f + ".event");
    blk.halfDone =
        r.boolean(r.member(b, "half_done", f, false), f + ".half_done");
    if (const json *on = r.member(b, "blocked_on", f, false)) {
      std::string kind =
          r.string(r.member(*on, "kind", f + ".blocked_on", true),
                   f + ".blocked_on.kind");
      blk.on = blockKindOf(kind);
      if (r.ok() && !blk.on)
        r.fail(f + ".blocked_on.kind", "unknown blocking kind '" + kind + "'");
      if (const json *h = r.member(*on, "held_since", f + ".blocked_on", false))
        blk.heldSince = r.event(h, "event", f + ".blocked_on.held_since");
    }
    w.blocked.push_back(blk);
  }
}

void readViolation(Reader &r, const json &j, WitnessSpec &w) {
  w.property = r.string(r.member(j, "property", "property", true), "property");
  w.propertyFile = r.string(
      r.member(j, "property_file", "property_file", false), "property_file");
  w.patternIndex = r.event(r.member(j, "pattern_index", "pattern_index", true),
                           "pattern_index");
  const json *events = r.array(r.member(j, "events", "events", true), "events");
  if (events && events->empty())
    r.fail("events", "the violation names no events");
  for (size_t i = 0; events && i < events->size() && r.ok(); ++i)
    w.violationEvents.push_back(r.event(
        &(*events)[i], "event", "events[" + std::to_string(i) + "].event"));
}

} // namespace

Expected<WitnessSpec> parseWitness(const json &j, WitnessKind kind,
                                   const std::string &where) {
  Reader r(where);
  WitnessSpec w;
  w.kind = kind;
  if (!j.is_object())
    r.fail(witnessKindName(kind),
           "expected an object, got " + Reader::typeName(j));
  else {
    w.trace = r.string(r.member(j, "trace", "trace", false), "trace");
    w.witness = r.events(r.member(j, "witness", "witness", true), "witness");
    readSteps(r, j, w);
    if (kind == WitnessKind::Race) {
      w.first =
          r.event(r.member(j, "first", "first", true), "event", "first.event");
      w.second = r.event(r.member(j, "second", "second", true), "event",
                         "second.event");
      if (r.ok() && w.first >= w.second)
        r.fail("second.event", "the second event (" + std::to_string(w.second) +
                                   ") must come after the first (" +
                                   std::to_string(w.first) + ")");
    } else if (kind == WitnessKind::Deadlock) {
      readDeadlock(r, j, w);
    } else {
      readViolation(r, j, w);
    }
  }
  if (!r.ok())
    return r.error();
  return w;
}

namespace {

bool isReport(const json &j) {
  return j.contains("races") || j.contains("deadlocks") ||
         j.contains("violations");
}

Expected<json> parseJsonFile(const std::string &path) {
  auto in = openInput(path, "witness");
  if (!in)
    return in.error();
  json j;
  try {
    j = json::parse(*in);
  } catch (const json::exception &e) {
    // parse_error names the line and column ("at line 3, column 9").
    return Error{path + ": not valid JSON: " + e.what()};
  }
  return j;
}

/// The witness of a --witness-dir file: its "kind" says which.
Expected<WitnessSpec> fileWitness(const json &j, const std::string &path) {
  auto kind = j.find("kind");
  std::string k = kind != j.end() && kind->is_string()
                      ? kind->get<std::string>()
                      : std::string();
  for (WitnessKind wk :
       {WitnessKind::Race, WitnessKind::Deadlock, WitnessKind::Violation})
    if (k == witnessKindName(wk))
      return parseWitness(j, wk, path);
  return Error{path + ": not a racepredict report or witness file (" +
               (kind == j.end() ? std::string("no \"races\", \"deadlocks\", "
                                              "\"violations\" or \"kind\"")
                                : "unknown witness kind " + kind->dump()) +
               ")"};
}

} // namespace

Expected<std::vector<WitnessSpec>> parseWitnesses(const json &j,
                                                  const std::string &path) {
  if (!j.is_object())
    return Error{path +
                 ": expected a JSON object (a report or a witness "
                 "file), got " +
                 Reader::typeName(j)};
  std::vector<WitnessSpec> out;
  if (isReport(j)) {
    for (auto [key, kind] : {std::pair{"races", WitnessKind::Race},
                             {"deadlocks", WitnessKind::Deadlock},
                             {"violations", WitnessKind::Violation}}) {
      auto it = j.find(key);
      if (it == j.end())
        continue;
      if (!it->is_array())
        return Error{path + ": '" + key + "' is not a list (" +
                     Reader::typeName(*it) + ")"};
      for (size_t i = 0; i < it->size(); ++i) {
        auto w = parseWitness((*it)[i], kind,
                              path + ": " + witnessKindName(kind) + " " +
                                  std::to_string(i));
        if (!w)
          return w.error();
        out.push_back(std::move(*w));
      }
    }
    return out;
  }
  auto w = fileWitness(j, path);
  if (!w)
    return w.error();
  out.push_back(std::move(*w));
  return out;
}

Expected<std::vector<WitnessSpec>> readWitnesses(const std::string &path) {
  auto parsed = parseJsonFile(path);
  if (!parsed)
    return parsed.error();
  return parseWitnesses(*parsed, path);
}

Expected<WitnessSpec> readWitnessFile(const std::string &path) {
  auto parsed = parseJsonFile(path);
  if (!parsed)
    return parsed.error();
  if (!parsed->is_object())
    return Error{path + ": expected a JSON object (a witness file), got " +
                 Reader::typeName(*parsed)};
  if (isReport(*parsed))
    return Error{path + ": a report, not a witness file (`analyze "
                        "--witness-dir DIR` writes one per finding)"};
  return fileWitness(*parsed, path);
}

} // namespace racepredict::report
