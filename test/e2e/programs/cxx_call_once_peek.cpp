// Settings parsed on first use with std::call_once; main peeks at the
// "built" flag to skip the call. The client thread asks first in
// ThreadSanitizer's run (its std::thread starts before main goes on), so
// main's peek races with the parse.
#include <cstdio>
#include <mutex>
#include <thread>
// expect-race: B P

struct Settings {
  int retries;
  bool built;
};
static Settings settings;
static std::once_flag settingsOnce;

static void parseSettings() {
  settings.retries = 5;
  settings.built = true; // @B
}

static int retries() {
  std::call_once(settingsOnce, parseSettings);
  return settings.retries;
}

int main() {
  std::thread client([] { std::printf("client %d\n", retries()); });
  int r = settings.built ? settings.retries : retries(); // @P
  client.join();
  std::printf("main %d\n", r);
}
