//===- instrument/RepeatedDecisions.cpp - Decisions already recorded ------===//
#include "RepeatedDecisions.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/Dominators.h"

using namespace llvm;

namespace racepredict {

SmallVector<bool, 32>
repeatedDecisions(Function &F,
                  ArrayRef<std::pair<Instruction *, Value *>> Decisions) {
  SmallVector<bool, 32> Repeated(Decisions.size(), false);
  DenseMap<Value *, SmallVector<unsigned, 4>> ByValue;
  for (unsigned I = 0; I < Decisions.size(); ++I)
    ByValue[Decisions[I].second].push_back(I);
  DominatorTree DT;
  bool Built = false;
  for (auto &Entry : ByValue) {
    const SmallVector<unsigned, 4> &Same = Entry.second;
    if (Same.size() < 2)
      continue;
    if (!Built) {
      DT.recalculate(F);
      Built = true;
    }
    for (unsigned D : Same) {
      Instruction *Site = Decisions[D].first;
      for (unsigned E : Same) {
        Instruction *Other = Decisions[E].first;
        bool Earlier = Other == Site ? E < D : DT.dominates(Other, Site);
        // The other decision is made right before its site, which runs
        // before ours on every path here: ours repeats it.
        if (E != D && Earlier) {
          Repeated[D] = true;
          break;
        }
      }
    }
  }
  return Repeated;
}

} // namespace racepredict
