//===- solver/encode/formula.cpp - Hash-consed formula pool ---------------===//
#include "racepredict/solver/formula.h"

#include "racepredict/support/error.h"

#include <algorithm>
#include <sstream>

namespace racepredict::solver {

const char *labelName(Label l) {
  static const char *const kNames[] = {"po",      "fork", "join",   "notify",
                                       "barrier", "lock", "sem",    "cf",
                                       "rf",      "race", "channel"};
  return kNames[static_cast<int>(l)];
}

namespace {
constexpr F kEmpty = ~F{0};

uint64_t mix(uint64_t h, uint64_t x) {
  // boost::hash_combine's step, then a multiply by splitmix64's first
  // constant and an xor-shift, so that the low bits, which index the
  // table, depend on every bit of the fields.
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 31);
}
} // namespace

FormulaPool::FormulaPool() : table_(1024, kEmpty) {
  intern({FOp::True}, {});
  intern({FOp::False}, {});
}

uint64_t FormulaPool::hashOf(const FNode &n, Kids kids, const int64_t *coeffs) {
  uint64_t h = mix(static_cast<uint64_t>(n.op), n.a);
  h = mix(h, n.b);
  h = mix(h, static_cast<uint64_t>(n.k));
  for (const F *k = kids.begin; k != kids.end; ++k)
    h = mix(h, *k);
  if (coeffs)
    for (size_t i = 0; i < kids.size(); ++i)
      h = mix(h, static_cast<uint64_t>(coeffs[i]));
  return h;
}

bool FormulaPool::sameNode(F f, const FNode &n, Kids kids,
                           const int64_t *coeffs) const {
  const FNode &m = nodes_[f];
  if (m.op != n.op || m.a != n.a || m.b != n.b || m.k != n.k ||
      m.kidsEnd - m.kidsBegin != kids.size())
    return false;
  if (!std::equal(kids.begin, kids.end, kids_.begin() + m.kidsBegin))
    return false;
  return !coeffs || std::equal(coeffs, coeffs + kids.size(),
                               coeffs_.begin() + m.kidsBegin);
}

void FormulaPool::growTable() {
  std::vector<F> bigger(table_.size() * 2, kEmpty);
  size_t mask = bigger.size() - 1;
  for (F f = 0; f < nodes_.size(); ++f) {
    size_t i = hashes_[f] & mask;
    while (bigger[i] != kEmpty)
      i = (i + 1) & mask;
    bigger[i] = f;
  }
  table_.swap(bigger);
}

F FormulaPool::intern(FNode n, Kids kids, const int64_t *coeffs) {
  uint32_t h = static_cast<uint32_t>(hashOf(n, kids, coeffs));
  size_t mask = table_.size() - 1;
  size_t i = h & mask;
  for (; table_[i] != kEmpty; i = (i + 1) & mask) {
    F f = table_[i];
    if (hashes_[f] == h && sameNode(f, n, kids, coeffs))
      return f;
  }
  n.kidsBegin = static_cast<uint32_t>(kids_.size());
  kids_.insert(kids_.end(), kids.begin, kids.end);
  n.kidsEnd = static_cast<uint32_t>(kids_.size());
  if (coeffs)
    coeffs_.insert(coeffs_.end(), coeffs, coeffs + kids.size());
  else
    coeffs_.resize(kids_.size(), 0);
  F id = static_cast<F>(nodes_.size());
  nodes_.push_back(n);
  hashes_.push_back(h);
  table_[i] = id;
  if (2 * nodes_.size() > table_.size())
    growTable();
  return id;
}

F FormulaPool::leaf(FOp op, uint32_t a, uint32_t b) {
  FNode n{op};
  n.a = a;
  n.b = b;
  return intern(n, {});
}

F FormulaPool::mkNot(F f) {
  if (f == top())
    return bottom();
  if (f == bottom())
    return top();
  if (nodes_[f].op == FOp::Not)
    return kids_[nodes_[f].kidsBegin];
  return intern({FOp::Not}, {&f, &f + 1});
}

F FormulaPool::junction(FOp op, Kids kids) {
  F absorbing = op == FOp::And ? bottom() : top();
  F neutral = op == FOp::And ? top() : bottom();
  scratch_.clear();
  for (const F *k = kids.begin; k != kids.end; ++k) {
    if (*k == absorbing)
      return absorbing;
    if (*k != neutral)
      scratch_.push_back(*k);
  }
  if (scratch_.empty())
    return neutral;
  if (scratch_.size() == 1)
    return scratch_[0];
  return intern({op}, scratch_);
}

F FormulaPool::implies(F a, F b) {
  if (a == bottom() || b == top())
    return top();
  if (a == top())
    return b;
  if (b == bottom())
    return mkNot(a);
  F kids[] = {a, b};
  return intern({FOp::Implies}, {kids, kids + 2});
}

F FormulaPool::atMost(const std::vector<F> &kids, int64_t k) {
  size_t n = kids.size();
  if (k < 0)
    return bottom();
  if (n <= static_cast<size_t>(k))
    return top();
  if (k == 0) {
    std::vector<F> none;
    for (F x : kids)
      none.push_back(mkNot(x));
    return mkAnd(none);
  }
  // s[i][l]: at least l+1 of kids[0..i] hold (only implied upwards).
  size_t kk = static_cast<size_t>(k);
  std::vector<F> clauses;
  std::vector<F> prev(kk), cur(kk);
  for (size_t i = 0; i < n; ++i) {
    F x = kids[i];
    if (i > 0)
      clauses.push_back(implies(x, mkNot(prev[kk - 1]))); // no (k+1)-th
    if (i + 1 == n)
      break;
    for (size_t l = 0; l < kk; ++l)
      cur[l] = boolVar(newBoolVar());
    clauses.push_back(implies(x, cur[0]));
    for (size_t l = 0; l < kk; ++l) {
      if (i > 0) {
        clauses.push_back(implies(prev[l], cur[l]));
        if (l > 0)
          clauses.push_back(implies(mkAnd({x, prev[l - 1]}), cur[l]));
      } else if (l > 0) {
        clauses.push_back(mkNot(cur[l]));
      }
    }
    prev.swap(cur);
  }
  return mkAnd(clauses);
}

F FormulaPool::pbGe(const std::vector<F> &kids,
                    const std::vector<int64_t> &coeffs, int64_t k) {
  RACEPREDICT_ASSERT(kids.size() == coeffs.size(), "pbGe arity mismatch");
  hasPb_ = true;
  FNode n{FOp::PbGe};
  n.k = k;
  return intern(n, kids, coeffs.data());
}

std::string FormulaPool::toSmt2(F f) const {
  const FNode &n = nodes_[f];
  std::ostringstream s;
  auto kids = [&](const char *op) {
    s << "(" << op;
    for (const F *k = kidsBegin(f); k != kidsEnd(f); ++k)
      s << " " << toSmt2(*k);
    s << ")";
  };
  switch (n.op) {
  case FOp::True:
    return "true";
  case FOp::False:
    return "false";
  case FOp::Lt:
    s << "(< o" << n.a << " o" << n.b << ")";
    break;
  case FOp::Le:
    s << "(<= o" << n.a << " o" << n.b << ")";
    break;
  case FOp::Bool:
    s << "b" << n.a;
    break;
  case FOp::Not:
    kids("not");
    break;
  case FOp::And:
    kids("and");
    break;
  case FOp::Or:
    kids("or");
    break;
  case FOp::Implies:
    kids("=>");
    break;
  case FOp::PbGe: {
    s << "(>= (+ 0";
    const F *k = kidsBegin(f);
    for (size_t i = 0; k + i != kidsEnd(f); ++i)
      s << " (ite " << toSmt2(k[i]) << " " << coeffs_[n.kidsBegin + i] << " 0)";
    s << ") " << n.k << ")";
    break;
  }
  }
  return s.str();
}

} // namespace racepredict::solver
