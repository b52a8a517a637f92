//===- channel_order_test.cpp - The order sends and receives impose -------===//
#include "racepredict/analysis/channel_order.h"
#include "racepredict/solver/race_predictor.h"
#include "racepredict/trace/text_format.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>

using namespace racepredict;
using analysis::EventId;

namespace {

trace::Trace parse(const std::string &text) {
  std::istringstream in(text);
  auto t = trace::parseTextTrace(in, "channels.rpt.txt");
  EXPECT_TRUE(static_cast<bool>(t)) << (t ? "" : t.error().message);
  return t ? std::move(*t) : trace::Trace{};
}

std::vector<EventId> preds(const analysis::TraceIndex &idx, EventId e) {
  return idx.channelPredecessors(e).vec();
}

std::set<std::pair<EventId, EventId>> races(const std::string &text) {
  trace::Trace t = parse(text);
  analysis::TraceIndex idx(t);
  solver::RaceOptions o;
  o.allPairs = true;
  std::set<std::pair<EventId, EventId>> out;
  for (const auto &f : solver::predictRaces(idx, o).races)
    out.insert({f.first, f.second});
  return out;
}

} // namespace

TEST(ChannelOrder, AReceiveFollowsTheSendsOfItsBytesOnly) {
  // Two producers write one pipe; one consumer reads their bytes in two
  // receives, the second of which covers both sends' bytes.
  trace::Trace t = parse("t1 send p 0 4\n"  // 0
                         "t2 send p 4 4\n"  // 1: after 0 (the position)
                         "t1 send p 8 4\n"  // 2
                         "t3 recv p 0 4\n"  // 3: after 0 only
                         "t3 recv p 4 8\n"  // 4: after 2, the newest of 1, 2
                         "t3 recv p 12 4\n" // 5: bytes nobody sent
  );
  analysis::TraceIndex idx(t);
  EXPECT_EQ(preds(idx, 0), std::vector<EventId>{});
  EXPECT_EQ(preds(idx, 1), std::vector<EventId>{0});
  EXPECT_EQ(preds(idx, 2), std::vector<EventId>{1});
  EXPECT_EQ(preds(idx, 3), std::vector<EventId>{0});
  EXPECT_EQ(preds(idx, 4), std::vector<EventId>{2});
  EXPECT_EQ(preds(idx, 5), std::vector<EventId>{});
}

TEST(ChannelOrder, AFileWriteOverBytesReadFollowsTheRead) {
  // t1 writes a record, t2 reads it, t1 overwrites it: in a reordering the
  // read must still come between the two writes.
  trace::Trace t = parse("t1 send f 0 8\n"  // 0
                         "t2 recv f 0 8\n"  // 1: after 0
                         "t1 send f 4 8\n"  // 2: after 1 (overwrites 4..8)
                         "t3 recv f 16 8\n" // 3: after 1 (the position)
                         "t3 recv f 0 4\n"  // 4: after 0 (2 wrote 4..12)
  );
  analysis::TraceIndex idx(t);
  EXPECT_EQ(preds(idx, 1), std::vector<EventId>{0});
  EXPECT_EQ(preds(idx, 2), std::vector<EventId>{1});
  EXPECT_EQ(preds(idx, 3), std::vector<EventId>{1});
  EXPECT_EQ(preds(idx, 4), std::vector<EventId>{0});
}

TEST(ChannelOrder, OrdersDataHandedOverButNotWrittenAfterTheSend) {
  // The data written before the send is ordered before the read after the
  // receive; an update after the send is not, though the producer sent
  // again before the consumer received (a per-descriptor release/acquire
  // would order it).
  EXPECT_TRUE(races("t1 wr job 7\n"
                    "t1 send p 0 1\n"
                    "t2 recv p 0 1\n"
                    "t2 rd job 7\n")
                  .empty());
  EXPECT_EQ(races("t1 wr job 7\n"   // 0
                  "t1 send p 0 1\n" // 1
                  "t1 wr stats 1\n" // 2
                  "t1 send p 1 1\n" // 3
                  "t2 recv p 0 1\n" // 4
                  "t2 rd job 7\n"   // 5
                  "t2 rd stats 1\n" // 6
                  ),
            (std::set<std::pair<EventId, EventId>>{{2, 6}}));
}

TEST(ChannelOrder, TextFormatRejectsBadOperands) {
  std::istringstream in("t1 send p 0\n");
  auto t = trace::parseTextTrace(in, "bad.rpt.txt");
  ASSERT_FALSE(static_cast<bool>(t));
  std::istringstream in2("t1 recv p -1 4\n");
  auto t2 = trace::parseTextTrace(in2, "bad.rpt.txt");
  ASSERT_FALSE(static_cast<bool>(t2));
  EXPECT_NE(t2.error().message.find("channel offset bytes"), std::string::npos);
}
