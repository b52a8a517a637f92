//===- report/signature.cpp - Normalised finding signatures ---------------===//
#include "racepredict/report/signature.h"

#include "racepredict/support/utf8.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace racepredict::report {

namespace fs = std::filesystem;

std::string normalisedPath(const std::string &file,
                           const std::string &sourceRoot) {
  if (file.empty())
    return file;
  fs::path p = fs::path(file).lexically_normal();
  if (p.is_relative()) {
    if (!p.empty() && *p.begin() == "..")
      return p.filename().string();
    return p.generic_string();
  }
  if (!sourceRoot.empty()) {
    fs::path rel =
        p.lexically_relative(fs::path(sourceRoot).lexically_normal());
    if (!rel.empty() && *rel.begin() != ".." && rel != ".")
      return rel.generic_string();
  }
  return p.filename().string();
}

std::string siteKey(const Site &s, const std::string &sourceRoot) {
  if (s.file.empty()) {
    bool address = s.object.rfind("0x", 0) == 0;
    return "?" + (address ? std::string() : s.object) + ":" + s.op;
  }
  return normalisedPath(s.file, sourceRoot) + ":" + std::to_string(s.line) +
         ":" + s.function;
}

namespace {

std::string joinSorted(std::vector<std::string> keys) {
  std::sort(keys.begin(), keys.end());
  std::string out;
  for (size_t i = 0; i < keys.size(); ++i)
    out += (i ? "|" : "") + keys[i];
  return out;
}

std::string rawSignature(const Finding &f, const std::string &sourceRoot) {
  std::vector<std::string> keys;
  for (const auto &s : f.sites)
    keys.push_back(siteKey(s, sourceRoot));
  std::string kind = findingKindName(f.kind);
  switch (f.kind) {
  case FindingKind::Race:
    return kind + "|" + joinSorted(keys);
  case FindingKind::Deadlock: {
    // sites = k requests, then the k acquisitions they hold; a cycle has
    // no first thread, so each half is sorted on its own.
    size_t k = keys.size() / 2;
    std::vector<std::string> req(keys.begin(), keys.begin() + k);
    std::vector<std::string> held(keys.begin() + k, keys.end());
    return kind + "|" + joinSorted(req) + "||" + joinSorted(held);
  }
  case FindingKind::Property:
    return kind + "|" + f.object + "|" + joinSorted(keys);
  }
  RACEPREDICT_UNREACHABLE("finding kind");
}

} // namespace

std::string findingSignature(const Finding &f, const std::string &sourceRoot) {
  // A signature is written to baselines and SARIF fingerprints and read
  // back: text, so names that are not UTF-8 are escaped in it.
  return escapeNonUtf8(rawSignature(f, sourceRoot));
}

std::string signatureFingerprint(const std::string &signature) {
  uint64_t h = 14695981039346656037ull; // FNV-1a 64 offset basis
  for (unsigned char c : signature) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

} // namespace racepredict::report
