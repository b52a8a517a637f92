//===- support/utf8.cpp - Names are bytes; what we write is UTF-8 ---------===//
#include "racepredict/support/utf8.h"

namespace racepredict {

namespace {

/// The length of the valid UTF-8 sequence at `p` (`avail` bytes there), 0
/// if the bytes cannot start one. `*incomplete` is set when they are a
/// valid start cut short by the end of the buffer. The ranges are those of
/// the Unicode standard's table of well-formed byte sequences (3-7).
size_t sequenceLength(const unsigned char *p, size_t avail, bool *incomplete) {
  *incomplete = false;
  unsigned char c = p[0];
  if (c < 0x80)
    return 1;
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF; // range of the second byte
  if (c >= 0xC2 && c <= 0xDF)
    len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0; // no overlong forms
    else if (c == 0xED)
      hi = 0x9F; // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F; // nothing above U+10FFFF
  } else {
    return 0;
  }
  for (size_t k = 1; k < len; ++k) {
    if (k >= avail) {
      *incomplete = true;
      return 0;
    }
    unsigned char lim0 = k == 1 ? lo : 0x80, lim1 = k == 1 ? hi : 0xBF;
    if (p[k] < lim0 || p[k] > lim1)
      return 0;
  }
  return len;
}

void appendEscaped(std::string &out, unsigned char c) {
  static const char kHex[] = "0123456789ABCDEF";
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

/// Appends the escaped form of `s` to `out`; returns how many bytes at the
/// end form an incomplete (so far valid) sequence when `keepTail`, which
/// are left out.
size_t escapeInto(std::string &out, std::string_view s, bool keepTail) {
  const auto *p = reinterpret_cast<const unsigned char *>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    bool incomplete;
    size_t len = sequenceLength(p + i, n - i, &incomplete);
    if (incomplete && keepTail)
      return n - i;
    if (len == 0) {
      appendEscaped(out, p[i]);
      ++i;
    } else {
      out.append(s.data() + i, len);
      i += len;
    }
  }
  return 0;
}

template <typename Json> void walk(Json &j) {
  if (j.is_string()) {
    auto &s = j.template get_ref<std::string &>();
    if (!isUtf8(s))
      s = escapeNonUtf8(s);
  } else if (j.is_array()) {
    for (auto &x : j)
      walk(x);
  } else if (j.is_object()) {
    // Keys cannot be changed in place: rebuild the object only if one is
    // bad (they are our own field names, or names of the trace).
    bool badKey = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      badKey |= !isUtf8(it.key());
      walk(it.value());
    }
    if (badKey) {
      Json fixed = Json::object();
      for (auto it = j.begin(); it != j.end(); ++it)
        fixed[escapeNonUtf8(it.key())] = std::move(it.value());
      j = std::move(fixed);
    }
  }
}

} // namespace

bool isUtf8(std::string_view s) {
  const auto *p = reinterpret_cast<const unsigned char *>(s.data());
  for (size_t i = 0, n = s.size(); i < n;) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    bool incomplete;
    size_t len = sequenceLength(p + i, n - i, &incomplete);
    if (len == 0)
      return false;
    i += len;
  }
  return true;
}

std::string escapeNonUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  escapeInto(out, s, false);
  return out;
}

std::string unescapeNonUtf8(std::string_view s) {
  auto hex = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                  : -1;
  };
  if (s.find("\\x") == std::string_view::npos)
    return std::string(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' &&
        hex(s[i + 2]) >= 8 && hex(s[i + 3]) >= 0) {
      out += static_cast<char>(hex(s[i + 2]) * 16 + hex(s[i + 3]));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

void makeUtf8(nlohmann::json &j) { walk(j); }
void makeUtf8(nlohmann::ordered_json &j) { walk(j); }

std::string jsonText(nlohmann::json j, int indent) {
  makeUtf8(j);
  return j.dump(indent);
}

std::string jsonText(nlohmann::ordered_json j, int indent) {
  makeUtf8(j);
  return j.dump(indent);
}

bool Utf8Filter::forward(const char *s, size_t n) {
  // Reports are mostly ASCII: forward those writes as they are.
  bool ascii = pending_.empty();
  for (size_t i = 0; ascii && i < n; ++i)
    ascii = static_cast<unsigned char>(s[i]) < 0x80;
  if (ascii)
    return put(s, n);
  std::string in;
  std::string_view chunk(s, n);
  if (!pending_.empty()) {
    in = pending_ + std::string(chunk);
    pending_.clear();
    chunk = in;
  }
  std::string out;
  size_t tail = escapeInto(out, chunk, true);
  pending_.assign(chunk.substr(chunk.size() - tail));
  return put(out.data(), out.size());
}

bool Utf8Filter::flushPending() {
  if (pending_.empty())
    return true;
  std::string out;
  escapeInto(out, pending_, false);
  pending_.clear();
  return put(out.data(), out.size());
}

} // namespace racepredict
