// The twin of cxx_async_race.cpp: main configures before it launches the
// task and changes the level only after f.get().
#include <future>
#include <iostream>
#include <string>
#include <vector>

struct Settings {
  bool verbose = false;
  int level = 1;
};
static Settings settings;

static unsigned checksum(const std::vector<std::string> &lines) {
  unsigned sum = 0;
  for (const auto &l : lines)
    for (char c : l)
      sum = sum * 31 + static_cast<unsigned char>(c);
  if (settings.verbose)
    std::cout << "checksum of " << lines.size() << " lines\n";
  return sum;
}

int main() {
  std::vector<std::string> lines = {"GET / HTTP/1.1", "Host: example.org",
                                    "Accept: */*"};
  settings.verbose = true;
  std::future<unsigned> f =
      std::async(std::launch::async, checksum, std::cref(lines));
  unsigned sum = f.get();
  settings.level = 2;
  std::cout << std::hex << sum << " level " << settings.level << std::endl;
}
