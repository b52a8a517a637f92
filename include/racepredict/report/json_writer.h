//===- report/json_writer.h - JSON written as it is produced --------------===//
//
// A report of thousands of findings, each with a witness of 50,000 steps,
// is gigabytes of JSON: built as one nlohmann document first it needed
// 15 GB (issue 17). JsonWriter prints the same text as nlohmann's
// `dump(2)` after makeUtf8 (support/utf8.h: jsonText), byte for byte, but
// as it goes: containers are opened and closed on the stream, small values
// (one event, the stats) are still nlohmann values dumped in place, and a
// witness is written one step at a time.
//
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace racepredict::report {

class JsonWriter {
public:
  /// Writes one value (an object, array or scalar) where the writer is.
  using Fill = std::function<void(JsonWriter &)>;
  /// Values of some members produced by a Fill instead of the document:
  /// {key, fill} pairs.
  using Fills = std::vector<std::pair<std::string_view, Fill>>;

  explicit JsonWriter(std::ostream &out) : out_(out) {}
  ~JsonWriter() { flush(); }

  /// Containers, as a value (an array element, or after key()).
  void beginObject() { open('{'); }
  void beginArray() { open('['); }
  /// Closes the innermost container.
  void end();
  /// The next member's key, in an object.
  void key(std::string_view k);
  /// Any value, as jsonText would print it at this depth.
  void value(const nlohmann::ordered_json &v);
  void number(uint64_t n);
  void boolean(bool b);
  /// Object `obj` as a value, its members in its order; a member named in
  /// `fills` is written by its fill instead.
  void object(const nlohmann::ordered_json &obj, const Fills &fills = {});
  /// Hands what is buffered to the stream.
  void flush();

private:
  void open(char bracket);
  /// A comma, line break and indentation before an element or key.
  void separate();
  void indent(size_t depth) { buf_.append(2 * depth, ' '); }
  void spill() {
    if (buf_.size() >= (1 << 16))
      flush();
  }

  struct Level {
    char close;
    size_t count = 0;
  };
  std::ostream &out_;
  std::string buf_;
  std::vector<Level> open_;
  bool afterKey_ = false;
};

} // namespace racepredict::report
