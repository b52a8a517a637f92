//===- trace_test_util.h - Helpers shared by the trace format tests -------===//
#pragma once

#include "racepredict/trace/binary_format.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace racepredict::trace::test {

/// A trace with every event kind and every optional field of the text
/// format (explicit and default rmw old values, precise and plain branches,
/// explicit, default and absent wait matches, custom args, sources with and
/// without column and function, negative and extreme values).
inline const char *kAllKinds = R"(# every event kind
init x 5
init big -3
t1 begin @a.c:1
t1 seminit s 2 @a.c:2:7
t1 fork t2 @a.c:3:1@main
t1 acq m
t1 wr x 1 @a.c:4
t1 rel m
t2 begin @b.c:1@worker
t2 racq rw
t2 rel rw
t2 tryfail m
t2 rd x 1 @b.c:2:5@worker
t2 ard flag 0
t2 awr flag 1
t2 armw cnt 2 1
t2 armw cnt 3
t2 br <- 10 11 13 14
t2 br
t2 alloc h1 16
t2 free h1 16
t2 ev open f1 f2
t2 ev close
t2 barrier b 2
t1 barrier b 2
t1 signal c
t2 acq m
t2 wait c m
t1 broadcast c
t2 wait c m <- 26
t2 wait c m <- none
t2 rel m
t2 post s
t1 semwait s
t2 wr big 9223372036854775807
t2 rd big -9223372036854775807
t2 wr 0x10 -1
t2 send pipe:[7] 0 8 @b.c:9
t2 end
t1 recv pipe:[7] 0 8
t1 join t2
t1 end @a.c:9
)";

inline Trace parseText(const std::string &text,
                       const std::string &name = "test.rpt.txt") {
  std::istringstream in(text);
  auto t = parseTextTrace(in, name);
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : Trace{};
}

inline std::string toText(const Trace &t) {
  std::ostringstream out;
  writeTextTrace(t, out);
  return out.str();
}

inline std::string toBinary(const Trace &t) {
  std::ostringstream out;
  writeBinaryTrace(t, out);
  return out.str();
}

inline Expected<Trace> fromBinary(const std::string &bytes,
                                  const ReadOptions &opts = {},
                                  ReadInfo *info = nullptr,
                                  const std::string &name = "test.rptrace") {
  std::istringstream in(bytes);
  return parseBinaryTrace(in, name, opts, info);
}

/// Every index a consumer may follow is in range (what the analyser relies
/// on after a successful read, whatever the input was).
inline void expectConsistent(const Trace &t) {
  for (size_t i = 0; i < t.events.size(); ++i) {
    const Event &e = t.events[i];
    ASSERT_LT(e.thread, t.numThreads());
    ASSERT_LT(e.src, t.sources.size());
    bool has = false;
    NameSpace ns = objNameSpace(e.kind, &has);
    if (has) {
      ASSERT_LT(e.obj, t.table(ns).size());
    }
    switch (e.kind) {
    case EventKind::Wait:
      ASSERT_LT(e.aux, t.table(NameSpace::Lock).size());
      if (e.extra != kNone) {
        ASSERT_LT(e.extra, i);
        ASSERT_TRUE(isNotify(t.events[e.extra].kind));
      }
      break;
    case EventKind::AtomicRmw:
      ASSERT_LT(e.extra, t.rmwOld.size());
      break;
    case EventKind::Branch:
      if (t.hasDeps(e)) {
        ASSERT_LT(e.extra + 1, t.depOffsets.size());
        for (auto [b, end] = t.deps(e); b != end; ++b) {
          ASSERT_LT(*b, i);
          ASSERT_EQ(t.events[*b].thread, e.thread);
        }
      }
      break;
    case EventKind::Custom: {
      ASSERT_LT(e.extra + 1, t.argOffsets.size());
      for (auto [b, end] = t.args(e); b != end; ++b)
        ASSERT_LT(*b, t.table(NameSpace::Custom).size());
      break;
    }
    default:
      break;
    }
  }
}

} // namespace racepredict::trace::test
