//===- tools/racepredict/cmd_run.cpp - `racepredict run`
//-------------------===//
#include "commands.h"

#include <CLI/CLI.hpp>

namespace racepredict::tool {
void addRunCommand(CLI::App &, int &) {}
} // namespace racepredict::tool
