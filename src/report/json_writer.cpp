//===- report/json_writer.cpp - JSON written as it is produced ------------===//
#include "racepredict/report/json_writer.h"

#include "racepredict/support/error.h"
#include "racepredict/support/utf8.h"

#include <algorithm>
#include <charconv>
#include <ostream>

namespace racepredict::report {

// nlohmann's pretty printer (serializer::dump, indent 2): a non-empty
// container is its opening bracket, each element on its own line indented
// one level deeper and separated by ",\n", then a line break and the
// closing bracket at the container's own indentation; an empty one is
// "{}" or "[]"; a member is `"key": value`.

void JsonWriter::separate() {
  if (afterKey_) {
    afterKey_ = false;
    return;
  }
  if (open_.empty())
    return;
  Level &l = open_.back();
  buf_ += l.count++ ? ",\n" : "\n";
  indent(open_.size());
}

void JsonWriter::open(char bracket) {
  separate();
  buf_ += bracket;
  open_.push_back({bracket == '{' ? '}' : ']'});
}

void JsonWriter::end() {
  RACEPREDICT_ASSERT(!open_.empty() && !afterKey_, "a container to close");
  Level l = open_.back();
  open_.pop_back();
  if (l.count) {
    buf_ += '\n';
    indent(open_.size());
  }
  buf_ += l.close;
  spill();
}

void JsonWriter::key(std::string_view k) {
  RACEPREDICT_ASSERT(!open_.empty() && open_.back().close == '}' && !afterKey_,
                     "a key inside an object");
  separate();
  // Our keys are plain ASCII; anything else is escaped as nlohmann does.
  bool plain = std::all_of(k.begin(), k.end(), [](char c) {
    return c >= 0x20 && c != '"' && c != '\\' && c < 0x7f;
  });
  buf_ += plain ? '"' + std::string(k) + '"'
                : jsonText(nlohmann::ordered_json(std::string(k)));
  buf_ += ": ";
  afterKey_ = true;
}

void JsonWriter::value(const nlohmann::ordered_json &v) {
  separate();
  std::string text = jsonText(v);
  // Nested lines are indented as deep as this value sits; a line break
  // only ever separates elements (strings escape theirs).
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos;
       from = nl + 1) {
    buf_.append(text, from, nl + 1 - from);
    indent(open_.size());
  }
  buf_.append(text, from, std::string::npos);
  spill();
}

void JsonWriter::number(uint64_t n) {
  separate();
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, n);
  buf_.append(digits, r.ptr);
  spill();
}

void JsonWriter::boolean(bool b) {
  separate();
  buf_ += b ? "true" : "false";
}

void JsonWriter::object(const nlohmann::ordered_json &obj, const Fills &fills) {
  beginObject();
  for (auto m = obj.begin(); m != obj.end(); ++m) {
    key(m.key());
    auto fill = std::find_if(fills.begin(), fills.end(),
                             [&](const auto &f) { return f.first == m.key(); });
    if (fill != fills.end())
      fill->second(*this);
    else
      value(m.value());
  }
  end();
}

void JsonWriter::flush() {
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

} // namespace racepredict::report
