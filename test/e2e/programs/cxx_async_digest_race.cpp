// Two halves of a buffer digested in parallel: std::async with
// std::launch::async runs the first half on its own thread while main
// digests the second, then main joins the result with get(). Both halves
// bump a shared statistics counter without a lock; the counter's updates
// race (get() orders only what the task did before it returned with what
// main does after, not main's own update before it).
#include <cstdio>
#include <future>
#include <vector>
// expect-race: A A

static long blocks_digested;

static unsigned digest(const std::vector<unsigned char> &buf, size_t from,
                       size_t to) {
  unsigned h = 2166136261u;
  for (size_t i = from; i < to; ++i)
    h = (h ^ buf[i]) * 16777619u;
  ++blocks_digested; // @A
  return h;
}

int main() {
  std::vector<unsigned char> buf(256);
  for (size_t i = 0; i < buf.size(); ++i)
    buf[i] = static_cast<unsigned char>(i * 7);
  std::future<unsigned> first =
      std::async(std::launch::async, digest, std::cref(buf), 0, buf.size() / 2);
  unsigned second = digest(buf, buf.size() / 2, buf.size());
  unsigned h = first.get() ^ second;
  std::printf("digest %08x of %ld blocks\n", h, blocks_digested);
}
