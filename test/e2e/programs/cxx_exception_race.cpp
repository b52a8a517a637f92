// Parser threads throw std::runtime_error from deep inside the parser and
// catch it in their loop; the catch handler counts the bad records in a
// global counter without a lock. Every record is parsed into std::string
// fields (allocations, libstdc++'s own code before and around the race).
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
// expect-race: A A

static int badRecords;

static int parseNumber(const std::string &field) {
  int v = 0;
  for (char c : field) {
    if (c < '0' || c > '9')
      throw std::runtime_error("not a number: " + field);
    v = v * 10 + (c - '0');
  }
  return v;
}

static int parseRecord(const std::string &line) {
  size_t comma = line.find(',');
  std::string key = line.substr(0, comma);
  return parseNumber(line.substr(comma + 1)) + static_cast<int>(key.size());
}

static void parseAll(const char *const *lines, int n) {
  int sum = 0;
  for (int i = 0; i < n; ++i) {
    try {
      sum += parseRecord(lines[i]);
    } catch (const std::runtime_error &e) {
      ++badRecords; // @A
    }
  }
  std::printf("sum %d\n", sum);
}

int main() {
  static const char *const first[] = {"alpha,12", "beta,x7"};
  static const char *const second[] = {"gamma,3", "delta,4y"};
  std::thread a(parseAll, first, 2);
  std::thread b(parseAll, second, 2);
  a.join();
  b.join();
  std::printf("%d bad records\n", badRecords);
}
