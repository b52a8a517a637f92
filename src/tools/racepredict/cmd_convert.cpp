// placeholder: being written
#include "commands.h"
namespace racepredict::tool {
void addConvertCommand(CLI::App &, int &) {}
} // namespace racepredict::tool
