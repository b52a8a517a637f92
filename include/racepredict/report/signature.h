//===- report/signature.h - Stable identities of findings -----------------===//
//
// A signature names a finding by what stays put between nightly runs: its
// kind and its sites' normalised source locations (path relative to the
// source root, or the file's basename; line; function) — never event
// indices, addresses or thread ids, which change from run to run. Baselines
// store signatures; SARIF's partialFingerprints carry their hash.
//
#pragma once

#include "racepredict/report/finding.h"

#include <string>

namespace racepredict::report {

/// `file` relative to `sourceRoot` (an absolute directory) when it lies
/// under it; otherwise its basename. A relative `file` is already relative
/// to the build's sources: kept (lexically normalised) unless it climbs
/// out with `..`. Without a source root absolute paths become basenames.
std::string normalisedPath(const std::string &file,
                           const std::string &sourceRoot);

/// `path:line:function` of a site, or for a site without a source location
/// `?object:op` (`?:op` when the object is an address).
std::string siteKey(const Site &s, const std::string &sourceRoot);

/// `race|KEY|KEY` (sorted), `deadlock|REQUEST KEYS|HELD KEYS` (each
/// sorted), `property|NAME|KEYS`: readable, so baselines diff well.
std::string findingSignature(const Finding &f, const std::string &sourceRoot);

/// 16 hex digits (64-bit FNV-1a) of a signature: SARIF partialFingerprints.
std::string signatureFingerprint(const std::string &signature);

} // namespace racepredict::report
