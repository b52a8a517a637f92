//===- solver/encode/formula.cpp - Hash-consed formula pool ---------------===//
#include "racepredict/solver/formula.h"

#include "racepredict/support/error.h"

#include <sstream>

namespace racepredict::solver {

const char *labelName(Label l) {
  static const char *const kNames[] = {"po",      "fork", "join",   "notify",
                                       "barrier", "lock", "sem",    "cf",
                                       "rf",      "race", "channel"};
  return kNames[static_cast<int>(l)];
}

FormulaPool::FormulaPool() {
  intern({FOp::True}, {});
  intern({FOp::False}, {});
}

F FormulaPool::intern(FNode n, const std::vector<F> &kids) {
  std::string key;
  key.reserve(24 + kids.size() * 4);
  auto put = [&key](const void *p, size_t len) {
    key.append(static_cast<const char *>(p), len);
  };
  put(&n.op, sizeof n.op);
  put(&n.a, sizeof n.a);
  put(&n.b, sizeof n.b);
  put(&n.k, sizeof n.k);
  for (F k : kids)
    put(&k, sizeof k);
  if (n.op == FOp::PbGe)
    for (size_t i = 0; i < kids.size(); ++i)
      put(&coeffs_[coeffs_.size() - kids.size() + i], sizeof(int64_t));
  auto it = unique_.find(key);
  if (it != unique_.end()) {
    if (n.op == FOp::PbGe)
      coeffs_.resize(coeffs_.size() - kids.size());
    return it->second;
  }
  n.kidsBegin = static_cast<uint32_t>(kids_.size());
  kids_.insert(kids_.end(), kids.begin(), kids.end());
  n.kidsEnd = static_cast<uint32_t>(kids_.size());
  if (n.op != FOp::PbGe)
    coeffs_.resize(kids_.size(), 0);
  F id = static_cast<F>(nodes_.size());
  nodes_.push_back(n);
  unique_.emplace(std::move(key), id);
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
  return intern({FOp::Not}, {f});
}

F FormulaPool::mkAnd(std::vector<F> kids) {
  std::vector<F> keep;
  for (F k : kids) {
    if (k == bottom())
      return bottom();
    if (k != top())
      keep.push_back(k);
  }
  if (keep.empty())
    return top();
  if (keep.size() == 1)
    return keep[0];
  return intern({FOp::And}, keep);
}

F FormulaPool::mkOr(std::vector<F> kids) {
  std::vector<F> keep;
  for (F k : kids) {
    if (k == top())
      return top();
    if (k != bottom())
      keep.push_back(k);
  }
  if (keep.empty())
    return bottom();
  if (keep.size() == 1)
    return keep[0];
  return intern({FOp::Or}, keep);
}

F FormulaPool::implies(F a, F b) {
  if (a == bottom() || b == top())
    return top();
  if (a == top())
    return b;
  if (b == bottom())
    return mkNot(a);
  return intern({FOp::Implies}, {a, b});
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
  coeffs_.resize(kids_.size()); // keep coeffs_ parallel to kids_
  coeffs_.insert(coeffs_.end(), coeffs.begin(), coeffs.end());
  FNode n{FOp::PbGe};
  n.k = k;
  return intern(n, kids);
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
