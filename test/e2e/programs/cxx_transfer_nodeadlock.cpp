// The twin of cxx_transfer_deadlock.cpp: transfers lock the two accounts in
// one global order (by address), so opposite transfers cannot deadlock.
// expect-deadlock: none
#include "testonly.h"
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <string>
#include <thread>

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
  // Always the account at the lower address first: no cycle.
  bool fromFirst = std::less<Account *>()(&from, &to);
  std::lock_guard<std::mutex> f(fromFirst ? from.mu : to.mu);
  std::lock_guard<std::mutex> t(fromFirst ? to.mu : from.mu);
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
  t1.join();
  t2.join();
  std::cout << a.balance << " " << b.balance << std::endl;
}
