//===- symbol_table_test.cpp - Names stored once, ids in first-seen order -===//
#include "racepredict/trace/symbol_table.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>

namespace racepredict::trace {
namespace {

TEST(SymbolTable, IdsAreDenseInFirstSeenOrderAndStable) {
  SymbolTable tab;
  EXPECT_EQ(tab.size(), 0u);
  EXPECT_EQ(tab.intern("lock"), 0u);
  EXPECT_EQ(tab.intern("0x7f3a10"), 1u);
  EXPECT_EQ(tab.intern("lock"), 0u);
  EXPECT_EQ(tab.intern("0x7f3a10~1"), 2u);
  EXPECT_EQ(tab.size(), 3u);
  EXPECT_EQ(tab.name(0), "lock");
  EXPECT_EQ(tab.name(1), "0x7f3a10");
  EXPECT_EQ(tab.name(2), "0x7f3a10~1");
  EXPECT_EQ(tab.view(2), "0x7f3a10~1");
}

TEST(SymbolTable, LooksUpByContentNotByWhereTheCharactersLive) {
  SymbolTable tab;
  std::string text = "counter+8 and more";
  SymId id = tab.intern(std::string_view(text).substr(0, 9));
  text = "xxcounter+8";
  EXPECT_EQ(tab.find(std::string_view(text).substr(2)), id);
  EXPECT_EQ(tab.find("counter"), std::nullopt); // a prefix is another name
  EXPECT_EQ(tab.find("counter+80"), std::nullopt);
  EXPECT_EQ(tab.name(id), "counter+8");
  EXPECT_EQ(tab.size(), 1u); // find interns nothing
}

TEST(SymbolTable, FindOnAnEmptyTable) {
  SymbolTable tab;
  EXPECT_EQ(tab.find(""), std::nullopt);
  EXPECT_EQ(tab.find("x"), std::nullopt);
}

TEST(SymbolTable, TheEmptyNameIsANameLikeAnyOther) {
  SymbolTable tab;
  EXPECT_EQ(tab.intern("a"), 0u);
  EXPECT_EQ(tab.intern(""), 1u);
  EXPECT_EQ(tab.intern("b"), 2u);
  EXPECT_EQ(tab.intern(""), 1u);
  EXPECT_EQ(tab.find(""), 1u);
  EXPECT_EQ(tab.name(1), "");
  EXPECT_EQ(tab.name(0), "a");
  EXPECT_EQ(tab.name(2), "b");
  // Characters beyond ASCII and NULs are part of the content.
  std::string nul("x\0y", 3);
  SymId n = tab.intern(nul);
  EXPECT_EQ(tab.name(n), nul);
  EXPECT_EQ(tab.find("x"), std::nullopt);
  EXPECT_EQ(tab.intern("\xc3\xa9t\xc3\xa9"), n + 1);
}

// Many names, as a recorded trace's locations (addresses and their hidden-
// write renames), in a random order and with repeats, against a plain map:
// the table grows many times and every id and lookup stays right.
TEST(SymbolTable, ManyNamesAgreeWithAPlainMap) {
  std::mt19937 rng(17);
  SymbolTable tab;
  std::unordered_map<std::string, SymId> ref;
  std::vector<std::string> byId;
  for (int i = 0; i < 300000; ++i) {
    std::string name;
    switch (rng() % 4) {
    case 0:
      name = "0x" + std::to_string(0x7f0000 + rng() % 100000);
      break;
    case 1:
      name = "0x" + std::to_string(rng() % 1000) + "~" +
             std::to_string(rng() % 50);
      break;
    case 2:
      name = std::string(rng() % 40, static_cast<char>('a' + rng() % 26));
      break;
    default:
      name = i == 0 || byId.empty() ? "g" : byId[rng() % byId.size()];
    }
    auto [it, fresh] = ref.emplace(name, static_cast<SymId>(byId.size()));
    if (fresh)
      byId.push_back(name);
    ASSERT_EQ(tab.intern(name), it->second) << name;
  }
  ASSERT_EQ(tab.size(), byId.size());
  for (SymId id = 0; id < byId.size(); ++id) {
    ASSERT_EQ(tab.name(id), byId[id]);
    ASSERT_EQ(tab.find(byId[id]), id);
  }
  EXPECT_EQ(tab.find("0x"), std::nullopt);
}

TEST(SymbolTable, ACopyIsIndependent) {
  SymbolTable a;
  a.intern("x");
  SymbolTable b = a;
  EXPECT_EQ(b.intern("y"), 1u);
  EXPECT_EQ(a.size(), 1u);
  EXPECT_EQ(a.find("y"), std::nullopt);
  EXPECT_EQ(b.find("x"), 0u);
}

} // namespace
} // namespace racepredict::trace
