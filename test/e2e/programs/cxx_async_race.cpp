// std::async computes a checksum of a std::vector<std::string> while main
// goes on configuring: the task reads the `verbose` setting that main
// changes after launching it. The result comes back through std::future.
#include <future>
#include <iostream>
#include <string>
#include <vector>
// expect-race: A B

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
  if (settings.verbose) // @A
    std::cout << "checksum of " << lines.size() << " lines\n";
  return sum;
}

int main() {
  std::vector<std::string> lines = {"GET / HTTP/1.1", "Host: example.org",
                                    "Accept: */*"};
  std::future<unsigned> f =
      std::async(std::launch::async, checksum, std::cref(lines));
  settings.verbose = true; // @B
  settings.level = 2;
  unsigned sum = f.get();
  std::cout << std::hex << sum << " level " << settings.level << std::endl;
}
