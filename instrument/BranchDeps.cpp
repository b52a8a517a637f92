//===- instrument/BranchDeps.cpp - What a control decision depends on -----===//
#include "BranchDeps.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace racepredict {
namespace {
constexpr unsigned kMaxDepth = 24;
constexpr unsigned kMaxVisits = 512;
} // namespace

/// A synchronisation call the runtime intercepts whose result is 0 whenever
/// it does what the trace records (`assert(pthread_mutex_lock(&m) == 0)`,
/// std::mutex::lock's error check after inlining): every schedule of the
/// model performs the same operation, so the result reads nothing. Not the
/// try/timed variants (their outcome is the tryfail rule's), not
/// pthread_barrier_wait (which thread gets PTHREAD_BARRIER_SERIAL_THREAD
/// depends on the arrival order), not the allocators.
bool BranchDependences::resultFixedBySyncEvent(const CallInst &CI) {
  static const char *const kNames[] = {"pthread_mutex_lock",
                                       "pthread_mutex_unlock",
                                       "pthread_spin_lock",
                                       "pthread_spin_unlock",
                                       "pthread_rwlock_rdlock",
                                       "pthread_rwlock_wrlock",
                                       "pthread_rwlock_unlock",
                                       "pthread_cond_wait",
                                       "pthread_cond_signal",
                                       "pthread_cond_broadcast",
                                       "pthread_join",
                                       "pthread_create",
                                       "pthread_detach",
                                       "pthread_once",
                                       "sem_post",
                                       "sem_wait"};
  const Function *F = CI.getCalledFunction();
  if (!F)
    return false;
  for (const char *N : kNames)
    if (F->getName() == N)
      return true;
  return false;
}

void BranchDependences::collect(Value *V, Dependences &D) {
  SmallPtrSet<Value *, 16> Seen;
  collect(V, D, Seen, 0);
}

void BranchDependences::collect(Value *V, Dependences &D,
                                SmallPtrSetImpl<Value *> &Seen,
                                unsigned Depth) {
  bool &Precise = D.Precise;
  if (!Precise || isa<Constant>(V) || isa<AllocaInst>(V) ||
      !Seen.insert(V).second)
    return;
  auto Add = [&](Value *Dep) {
    D.Reads.insert(Dep);
    if (D.Reads.size() > kMaxDeps)
      Precise = false;
  };
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    if (ScalarLoads.count(LI)) {
      // Without a phi on the way, the load dominates the decision, so its
      // latest dynamic instance in this thread is the one that flowed here.
      Add(LI);
      return;
    }
  }
  if (isa<PHINode>(V) || isa<SelectInst>(V)) {
    // A phi may carry a value from an earlier iteration: the latest
    // instance of a load site is then not necessarily the one that flowed
    // here. Read-free phis (loop counters, flags set from constants) are
    // chosen by earlier branches, which are recorded themselves; a phi (or
    // a select on a read-free condition, a phi in one block) that carries
    // one read instance is named by a parallel phi (select) of seqs.
    if (Depth > kMaxDepth) {
      Precise = false;
      return;
    }
    if (isLoadFree(V))
      return;
    SmallPtrSet<Value *, 16> Open;
    Visits = 0;
    if (carried(V, Open, 0) == Carry::OneRead) {
      Add(V);
      return;
    }
    // Otherwise a select's operands are direct data flow (no phi between
    // them and the decision): their loads' latest instances.
    if (isa<PHINode>(V))
      Precise = false;
    else
      for (Value *Op : cast<Instruction>(V)->operands())
        collect(Op, D, Seen, Depth + 1);
    return;
  }
  if (isa<LoadInst>(V)) {
    // A private slot holds a value stored long ago: fine only read-free.
    if (Depth > kMaxDepth || !isLoadFree(V))
      Precise = false;
    return;
  }
  if (auto *II = dyn_cast<IntrinsicInst>(V))
    if (!II->mayReadOrWriteMemory() && !II->mayHaveSideEffects()) {
      // llvm.smax, llvm.abs, ...: a function of the operands.
      for (Value *Op : II->args())
        collect(Op, D, Seen, Depth + 1);
      return;
    }
  if (auto *CI = dyn_cast<CallInst>(V); CI && resultFixedBySyncEvent(*CI))
    return;
  if (isa<Argument>(V) || (isa<CallInst>(V) && !isa<IntrinsicInst>(V))) {
    // Fixed by the reads before the call (the caller's, or the callee's
    // and the caller's): a plain branch at entry / after the call stands
    // for them.
    D.Anchors.insert(V);
    return;
  }
  if (Depth > kMaxDepth || isa<CallBase>(V) || isa<AtomicRMWInst>(V) ||
      isa<AtomicCmpXchgInst>(V) || !isa<Instruction>(V)) {
    // Invokes, atomics and the like carry reads the pass cannot name: the
    // plain rule (all earlier reads) is the sound fallback.
    Precise = false;
    return;
  }
  for (Value *Op : cast<Instruction>(V)->operands())
    collect(Op, D, Seen, Depth + 1);
}

BranchDependences::Carry
BranchDependences::carried(Value *V, SmallPtrSetImpl<Value *> &Open,
                           unsigned Depth) {
  if (isa<Constant>(V) || isa<AllocaInst>(V))
    return Carry::ReadFree;
  if (Depth > kMaxDepth)
    return Carry::Bad;
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    if (ScalarLoads.count(LI))
      return Carry::OneRead;
    return isLoadFree(LI) ? Carry::ReadFree : Carry::Bad;
  }
  if (auto *P = dyn_cast<PHINode>(V)) {
    // Reaching a phi under analysis again: its own value passed around the
    // loop, which adds no read instance of its own.
    if (!Open.insert(P).second)
      return Carry::Cycle;
    Carry Result = Carry::ReadFree;
    for (Value *In : P->incoming_values()) {
      Carry C = carried(In, Open, Depth + 1);
      if (C == Carry::Bad)
        return Carry::Bad;
      if (C == Carry::OneRead)
        Result = Carry::OneRead; // whichever edge: one instance
    }
    Open.erase(P);
    return Result;
  }
  if (auto *CI = dyn_cast<CallInst>(V); CI && resultFixedBySyncEvent(*CI))
    return Carry::ReadFree;
  if (isa<Argument>(V) || isa<CallBase>(V) || isa<AtomicRMWInst>(V) ||
      isa<AtomicCmpXchgInst>(V) || !isa<Instruction>(V))
    return Carry::Bad;
  if (auto *S = dyn_cast<SelectInst>(V)) {
    // Like a phi whose choice is made by a read-free condition.
    if (carried(S->getCondition(), Open, Depth + 1) != Carry::ReadFree)
      return Carry::Bad;
    Carry T = carried(S->getTrueValue(), Open, Depth + 1);
    Carry F = carried(S->getFalseValue(), Open, Depth + 1);
    if (T == Carry::Bad || F == Carry::Bad)
      return Carry::Bad;
    if (T == Carry::OneRead || F == Carry::OneRead)
      return Carry::OneRead;
    return T == Carry::Cycle || F == Carry::Cycle ? Carry::Cycle
                                                  : Carry::ReadFree;
  }
  // An operation: at most one operand may carry anything (two reads, or a
  // read combined with the loop-carried value, are several instances).
  Carry Result = Carry::ReadFree;
  for (Value *Op : cast<Instruction>(V)->operands()) {
    Carry C = carried(Op, Open, Depth + 1);
    if (C == Carry::Bad || (C != Carry::ReadFree && Result != Carry::ReadFree))
      return Carry::Bad;
    if (C != Carry::ReadFree)
      Result = C;
  }
  return Result;
}

Value *BranchDependences::seqOf(Value *Dep,
                                function_ref<Value *(LoadInst *)> LoadSeq) {
  Type *I64 = Type::getInt64Ty(Dep->getContext());
  if (isa<Constant>(Dep) || isa<AllocaInst>(Dep) || isLoadFree(Dep))
    return ConstantInt::get(I64, kNoRead);
  if (auto *LI = dyn_cast<LoadInst>(Dep))
    if (ScalarLoads.count(LI))
      return LoadSeq(LI);
  if (auto *P = dyn_cast<PHINode>(Dep)) {
    auto It = SeqPhis.find(P);
    if (It != SeqPhis.end())
      return It->second;
    PHINode *S = PHINode::Create(I64, P->getNumIncomingValues(), "rp.seqphi",
                                 &P->getParent()->front());
    SeqPhis[P] = S; // before the incomings: a cycle comes back to S
    for (unsigned I = 0; I < P->getNumIncomingValues(); ++I)
      S->addIncoming(seqOf(P->getIncomingValue(I), LoadSeq),
                     P->getIncomingBlock(I));
    return S;
  }
  if (auto *Sel = dyn_cast<SelectInst>(Dep)) {
    auto It = SeqSelects.find(Sel);
    if (It != SeqSelects.end())
      return It->second;
    // Operands after the memo entry: a cycle through a phi comes back here.
    Value *None = UndefValue::get(I64);
    auto *S = SelectInst::Create(Sel->getCondition(), None, None, "rp.seqsel",
                                 Sel->getNextNode());
    SeqSelects[Sel] = S;
    S->setOperand(1, seqOf(Sel->getTrueValue(), LoadSeq));
    S->setOperand(2, seqOf(Sel->getFalseValue(), LoadSeq));
    return S;
  }
  // An operation carried() accepted: its one operand that carries a read.
  for (Value *Op : cast<Instruction>(Dep)->operands())
    if (!isLoadFree(Op))
      return seqOf(Op, LoadSeq);
  return ConstantInt::get(I64, kNoRead);
}

bool BranchDependences::loadFree(Value *V, SmallPtrSetImpl<Value *> &Seen,
                                 unsigned Depth) {
  if (isa<Constant>(V) || isa<AllocaInst>(V))
    return true;
  // A cycle (a phi feeding itself) adds nothing that the other operands do
  // not: the least fixed point is load-free when they are.
  if (!Seen.insert(V).second)
    return true;
  if (auto *CI = dyn_cast<CallInst>(V); CI && resultFixedBySyncEvent(*CI))
    return true;
  if (Depth > kMaxDepth || isa<Argument>(V) || isa<CallBase>(V) ||
      isa<AtomicRMWInst>(V) || isa<AtomicCmpXchgInst>(V) ||
      !isa<Instruction>(V))
    return false;
  if (auto *LI = dyn_cast<LoadInst>(V)) {
    if (LI->isAtomic() || LI->isVolatile())
      return false;
    const Value *Obj = getUnderlyingObject(LI->getPointerOperand(), 12);
    if (auto *GV = dyn_cast<GlobalVariable>(Obj))
      return GV->isConstant();
    auto *AI = dyn_cast<AllocaInst>(const_cast<Value *>(Obj));
    if (!AI || IsShared(AI))
      return false;
    return privateSlotLoadFree(AI, Seen, Depth + 1);
  }
  for (Value *Op : cast<Instruction>(V)->operands())
    if (!loadFree(Op, Seen, Depth + 1))
      return false;
  return true;
}

bool BranchDependences::privateSlotLoadFree(AllocaInst *AI,
                                            SmallPtrSetImpl<Value *> &Seen,
                                            unsigned Depth) {
  // Every way the slot's contents can be set must store a load-free value;
  // anything else touching it (a call, memcpy, an unusual use) fails.
  SmallVector<Value *, 8> Work{AI};
  SmallPtrSet<Value *, 8> Visited;
  while (!Work.empty()) {
    Value *P = Work.pop_back_val();
    if (!Visited.insert(P).second)
      continue;
    for (User *U : P->users()) {
      if (isa<LoadInst>(U))
        continue;
      if (auto *SI = dyn_cast<StoreInst>(U)) {
        if (SI->getPointerOperand() != P ||
            !loadFree(SI->getValueOperand(), Seen, Depth + 1))
          return false;
        continue;
      }
      if (isa<GetElementPtrInst>(U) || isa<BitCastInst>(U)) {
        Work.push_back(U);
        continue;
      }
      if (auto *II = dyn_cast<IntrinsicInst>(U))
        if (II->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(II))
          continue;
      return false;
    }
  }
  return true;
}

} // namespace racepredict
