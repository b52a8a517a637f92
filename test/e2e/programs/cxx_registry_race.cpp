// A command registry filled by global constructors (std::map keyed by
// std::string, before main), iostream, and pthread workers behind a small
// Mutex class, as test programs and servers have them. The workers record
// who finished last without the lock.
#include "testonly.h"
#include <iostream>
#include <map>
#include <pthread.h>
#include <string>
// expect-race: A A
// expect-stack: A worker

class Mutex {
public:
  Mutex() { pthread_mutex_init(&m_, nullptr); }
  void Lock() { pthread_mutex_lock(&m_); }
  void Unlock() { pthread_mutex_unlock(&m_); }

private:
  pthread_mutex_t m_;
};

class MutexLock {
public:
  explicit MutexLock(Mutex &m) : m_(m) { m_.Lock(); }
  ~MutexLock() { m_.Unlock(); }

private:
  Mutex &m_;
};

typedef void (*Command)();
static std::map<std::string, Command> &commands() {
  static std::map<std::string, Command> table;
  return table;
}
struct RegisterCommand {
  RegisterCommand(const char *name, Command c) { commands()[name] = c; }
};

static Mutex mu;
static long total; // guarded by mu
static long last;  // who finished last: not guarded

static void *worker(void *arg) {
  long id = reinterpret_cast<long>(arg);
  {
    MutexLock l(mu);
    total += id;
  }
  last = id; // @A
  return nullptr;
}

static void runWorkers() {
  pthread_t t[2];
  for (long i = 0; i < 2; ++i)
    pthread_create(&t[i], nullptr, worker, reinterpret_cast<void *>(i + 1));
  for (int i = 0; i < 2; ++i)
    pthread_join(t[i], nullptr);
  std::cout << "total " << total << " last " << last << std::endl;
}
static RegisterCommand registerRun("run", runWorkers);

static void help() {
  std::cout << "commands:";
  for (const auto &c : commands())
    std::cout << ' ' << c.first;
  std::cout << std::endl;
}
static RegisterCommand registerHelp("help", help);

int main(int argc, char **argv) {
  testonly_init();
  std::string name = argc > 1 ? argv[1] : "run";
  auto it = commands().find(name);
  if (it == commands().end()) {
    help();
    return 2;
  }
  it->second();
}
