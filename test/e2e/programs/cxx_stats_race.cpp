// std::thread workers of a server share a Stats object: bytes under the
// mutex, the request count outside it. A function-local static table
// (its guard variable) and plugins registered before main.
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
// expect-race: A A

static std::map<std::string, int> &codecs() {
  static std::map<std::string, int> table;
  return table;
}
struct Codec {
  explicit Codec(const char *name) {
    codecs()[name] = static_cast<int>(codecs().size());
  }
};
static Codec gzipCodec("gzip"), zstdCodec("zstd");

struct Stats {
  std::mutex mu;
  long bytes = 0;   // guarded by mu
  int requests = 0; // not guarded
};
static Stats stats;

static void serve(int client) {
  for (int chunk = 0; chunk < 2; ++chunk) {
    std::lock_guard<std::mutex> g(stats.mu);
    stats.bytes += client * 100 + chunk;
  }
  stats.requests++; // @A
}

int main() {
  std::vector<std::thread> workers;
  for (int client = 1; client <= 2; ++client)
    workers.emplace_back(serve, client);
  for (auto &w : workers)
    w.join();
  std::cout << stats.bytes << " bytes, " << stats.requests << " requests, "
            << codecs().size() << " codecs" << std::endl;
}
