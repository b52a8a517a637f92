// A routing table behind std::shared_mutex: lookups take it shared, an
// update takes it exclusively. A lookup also bumps the table's hit counter,
// still under the shared lock, so two readers race on it (shared mode does
// not exclude readers from each other).
#include <cstdio>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
// expect-race: A A
// cflags: -std=c++17

class Routes {
public:
  int lookup(const std::string &host) {
    std::shared_lock<std::shared_mutex> g(mu_);
    ++hits_; // @A
    auto it = table_.find(host);
    return it == table_.end() ? -1 : it->second;
  }
  void update(const std::string &host, int port) {
    std::unique_lock<std::shared_mutex> g(mu_);
    table_[host] = port;
  }
  long hits() {
    std::unique_lock<std::shared_mutex> g(mu_);
    return hits_;
  }

private:
  std::shared_mutex mu_;
  std::map<std::string, int> table_;
  long hits_ = 0;
};

static Routes routes;

static void client(const char *host, long *found) {
  for (int i = 0; i < 3; ++i)
    *found += routes.lookup(host) >= 0;
}

int main() {
  routes.update("a.example", 80);
  routes.update("b.example", 443);
  long fa = 0, fb = 0;
  std::thread t1(client, "a.example", &fa);
  std::thread t2(client, "b.example", &fb);
  routes.update("c.example", 8080);
  t1.join();
  t2.join();
  std::printf("found %ld, hits %ld\n", fa + fb, routes.hits());
}
