//===- tools/racepredict/program_input.h - Same input for every run -------===//
#pragma once

#include "racepredict/support/error.h"

#include <string>

namespace racepredict::tool {

/// A fresh private directory under $TMPDIR (or /tmp).
Expected<std::string> makeWorkDir(const std::string &prefix);
/// Removes a directory tree (errors ignored).
void removeTree(const std::string &dir);

/// The stdin file every run of the program gets: `--stdin FILE` if given;
/// else, when our own stdin is not a terminal, a copy of it in `workDir`
/// (so that the recording and each replay read the same bytes); else ""
/// (/dev/null).
Expected<std::string> programStdin(const std::string &stdinFlag,
                                   const std::string &workDir);

/// `'a b'`-quoted for a shell command line the user can paste.
std::string shellQuote(const std::string &s);

} // namespace racepredict::tool
