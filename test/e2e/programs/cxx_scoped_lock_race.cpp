// Transfers between two accounts under std::scoped_lock of both accounts'
// mutexes, in opposite orders: deadlock-free, libstdc++'s std::lock locks
// one mutex and only tries the others, backing off. A statement job takes
// both with std::try_lock and skips the round when either is busy, an
// interest job with std::unique_lock(m, std::try_to_lock). None of these
// waits while holding, so no deadlock. The count of transfers is bumped
// after the scoped lock's block: the two transfer threads race on it. (The
// jobs come first: a job after the transfers, reading balances the other
// thread's transfers write, would order that thread's transfers after this
// one's last count in every reordering that keeps what the job read.)
#include <cstdio>
#include <mutex>
#include <thread>
// expect-deadlock: none
// expect-race: A A
// cflags: -std=c++17

struct Account {
  std::mutex mu;
  long balance = 100;
};

static Account a, b;
static int transfers = 0;
static long statements = 0;

static void transfer(Account &from, Account &to, long amount) {
  {
    std::scoped_lock lock(from.mu, to.mu);
    from.balance -= amount;
    to.balance += amount;
  }
  ++transfers; // @A
}

static void statement() {
  if (std::try_lock(b.mu, a.mu) != -1)
    return; // busy: the next round prints it
  std::lock_guard<std::mutex> ga(a.mu, std::adopt_lock);
  std::lock_guard<std::mutex> gb(b.mu, std::adopt_lock);
  statements += a.balance + b.balance;
}

static void interest() {
  std::unique_lock<std::mutex> lb(b.mu, std::try_to_lock);
  if (!lb.owns_lock())
    return;
  std::lock_guard<std::mutex> la(a.mu);
  a.balance += 1;
  b.balance -= 1;
}

int main() {
  std::thread t1([] {
    statement();
    for (int i = 0; i < 3; ++i)
      transfer(a, b, 5);
  });
  std::thread t2([] {
    interest();
    for (int i = 0; i < 3; ++i)
      transfer(b, a, 7);
  });
  t1.join();
  t2.join();
  std::printf("a=%ld b=%ld transfers=%d statements=%ld\n", a.balance, b.balance,
              transfers, statements);
}
