// Bank accounts with a std::mutex each, created by a global constructor
// into a std::map keyed by name; transfer() locks the source, then the
// destination: two opposite transfers can deadlock. In the recorded run
// the second transfer starts only after the first is done (an order the
// recorder cannot see).
#include "testonly.h"
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
// expect-deadlock: t1@A t2@A t0@J

struct Account {
  std::mutex mu;
  long balance = 0;
};

static std::map<std::string, Account> &bank() {
  static std::map<std::string, Account> accounts;
  return accounts;
}
struct OpenAccount {
  OpenAccount(const char *name, long balance) {
    bank()[name].balance = balance;
  }
};
static OpenAccount alice("alice", 100), bob("bob", 50);

static void transfer(Account &from, Account &to, long amount) {
  std::lock_guard<std::mutex> f(from.mu);
  std::lock_guard<std::mutex> t(to.mu); // @A
  from.balance -= amount;
  to.balance += amount;
}

int main() {
  testonly_init();
  Account &a = bank()["alice"], &b = bank()["bob"];
  std::thread t1([&] {
    transfer(a, b, 30);
    testonly_signal();
  });
  std::thread t2([&] {
    testonly_wait();
    transfer(b, a, 20);
  });
  t1.join(); // @J
  t2.join();
  std::cout << a.balance << " " << b.balance << std::endl;
}
