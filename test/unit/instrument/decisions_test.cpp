//===- decisions_test.cpp - What the pass makes a decision depend on ------===//
//
// BranchDependences (instrument/BranchDeps.h) and repeatedDecisions
// (instrument/RepeatedDecisions.h) on hand-written IR: which reads a
// decision names, which phis get a parallel phi of seqs, which values are
// anchors (arguments, call results: a plain branch stands for them), when
// the plain rule applies, and which decisions repeat a dominating one. The
// end-to-end FileCheck test (test/e2e/instrument/hooks.c) checks the
// emitted calls on clang's output; these pin down the analyses themselves.
//
#include "BranchDeps.h"
#include "RepeatedDecisions.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

using namespace llvm;
using namespace racepredict;

namespace {

class Decisions : public ::testing::Test {
protected:
  /// Parses `ir` (globals @g, @h and declarations are provided) and returns
  /// the function `f`; every load of @g or @h is an instrumented load.
  Function &parse(const std::string &ir) {
    SMDiagnostic err;
    M = parseAssemblyString("@g = global i32 0\n@h = global i32 0\n"
                            "declare i32 @get()\n" +
                                ir,
                            err, Ctx);
    EXPECT_TRUE(M) << err.getMessage().str();
    Function *F = M->getFunction("f");
    for (Instruction &I : instructions(*F))
      if (auto *LI = dyn_cast<LoadInst>(&I))
        if (isa<GlobalVariable>(LI->getPointerOperand()))
          Loads.insert(LI);
    BD = std::make_unique<BranchDependences>(
        Loads, [](Value *P) { return isa<GlobalVariable>(P); });
    return *F;
  }
  /// The instruction named `name` in `f`.
  Value *value(Function &F, const char *name) {
    for (Instruction &I : instructions(F))
      if (I.getName() == name)
        return &I;
    for (Argument &A : F.args())
      if (A.getName() == name)
        return &A;
    ADD_FAILURE() << "no value %" << name;
    return nullptr;
  }
  /// The dependences of the condition of `f`'s branch named by `cond`.
  BranchDependences::Dependences deps(Function &F, const char *cond) {
    BranchDependences::Dependences D;
    BD->collect(value(F, cond), D);
    return D;
  }
  static std::vector<std::string> names(ArrayRef<Value *> Vs) {
    std::vector<std::string> out;
    for (Value *V : Vs)
      out.push_back(V->getName().str());
    return out;
  }

  LLVMContext Ctx;
  std::unique_ptr<Module> M;
  SmallPtrSet<LoadInst *, 8> Loads;
  std::unique_ptr<BranchDependences> BD;
};

} // namespace

TEST_F(Decisions, DirectLoadsAreTheirLatestInstances) {
  Function &F = parse(R"(
define void @f() {
  %a = load i32, i32* @g
  %b = load i32, i32* @h
  %s = add i32 %a, %b
  %c = icmp sgt i32 %s, 3
  ret void
})");
  auto D = deps(F, "c");
  EXPECT_TRUE(D.Precise);
  EXPECT_EQ(names(D.Reads.getArrayRef()), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(D.Anchors.empty());
}

TEST_F(Decisions, ReadFreeLoopCounterNamesNothing) {
  Function &F = parse(R"(
define void @f() {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %n = add i32 %i, 1
  %c = icmp slt i32 %n, 10
  br i1 %c, label %loop, label %out
out:
  ret void
})");
  auto D = deps(F, "c");
  EXPECT_TRUE(D.Precise);
  EXPECT_TRUE(D.Reads.empty());
}

TEST_F(Decisions, ReloadedBoundIsOnePhiWithAPhiOfSeqs) {
  // %bound is the first load or, after a reload, the latest one: one read
  // instance either way.
  Function &F = parse(R"(
define void @f() {
entry:
  %first = load i32, i32* @g
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %n, %next ]
  %bound = phi i32 [ %first, %entry ], [ %b2, %next ]
  %r = icmp eq i32 %i, 4
  br i1 %r, label %reload, label %next
reload:
  %again = load i32, i32* @g
  br label %next
next:
  %b2 = phi i32 [ %again, %reload ], [ %bound, %loop ]
  %n = add i32 %i, 1
  %c = icmp slt i32 %n, %b2
  br i1 %c, label %loop, label %out
out:
  ret void
})");
  auto D = deps(F, "c");
  ASSERT_TRUE(D.Precise);
  EXPECT_EQ(names(D.Reads.getArrayRef()), (std::vector<std::string>{"b2"}));
  // Its seq: a phi of the reload's seq and of %bound's seq phi, which in
  // turn takes the first load's seq and %b2's seq phi around the loop.
  std::map<std::string, Value *> seqOfLoad;
  auto LoadSeq = [&](LoadInst *LI) -> Value * {
    Value *&S = seqOfLoad[LI->getName().str()];
    if (!S)
      S = IRBuilder<>(LI->getNextNode())
              .CreateAdd(ConstantInt::get(Type::getInt64Ty(Ctx), 0),
                         ConstantInt::get(Type::getInt64Ty(Ctx), 0),
                         LI->getName() + ".seq");
    return S;
  };
  auto *S = dyn_cast<PHINode>(BD->seqOf(value(F, "b2"), LoadSeq));
  ASSERT_NE(S, nullptr);
  ASSERT_EQ(S->getNumIncomingValues(), 2u);
  EXPECT_EQ(S->getIncomingValue(0), seqOfLoad["again"]);
  auto *Outer = dyn_cast<PHINode>(S->getIncomingValue(1));
  ASSERT_NE(Outer, nullptr);
  EXPECT_EQ(Outer->getIncomingValue(0), seqOfLoad["first"]);
  EXPECT_EQ(Outer->getIncomingValue(1), S);
}

TEST_F(Decisions, AccumulatingPhiFallsBackToThePlainRule) {
  // %sum adds a new read every iteration: several instances.
  Function &F = parse(R"(
define void @f() {
entry:
  br label %loop
loop:
  %sum = phi i32 [ 0, %entry ], [ %s2, %loop ]
  %v = load i32, i32* @g
  %s2 = add i32 %sum, %v
  %c = icmp slt i32 %s2, 100
  br i1 %c, label %loop, label %out
out:
  ret void
})");
  EXPECT_FALSE(deps(F, "c").Precise);
}

TEST_F(Decisions, SelectOnAnArgumentIsDirectDataFlow) {
  // No phi between the load and the decision: the select's operands are
  // the load's latest instance and the argument (an anchor).
  Function &F = parse(R"(
define void @f(i1 %which) {
  %v = load i32, i32* @g
  %s = select i1 %which, i32 %v, i32 7
  %c = icmp eq i32 %s, 0
  ret void
})");
  auto D = deps(F, "c");
  ASSERT_TRUE(D.Precise);
  EXPECT_EQ(names(D.Reads.getArrayRef()), (std::vector<std::string>{"v"}));
  EXPECT_EQ(names(D.Anchors.getArrayRef()),
            (std::vector<std::string>{"which"}));
}

TEST_F(Decisions, LoopCarriedSelectIsOneRead) {
  // clang -O1's shape of a conditional reload: the select keeps the older
  // instance (through the phi) or takes the new one, on a read-free
  // condition.
  Function &F = parse(R"(
define void @f() {
entry:
  %first = load i32, i32* @g
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %bound = phi i32 [ %first, %entry ], [ %s, %loop ]
  %r = icmp eq i32 %i, 4
  %again = load i32, i32* @g
  %s = select i1 %r, i32 %again, i32 %bound
  %n = add i32 %i, 1
  %c = icmp slt i32 %n, %s
  br i1 %c, label %loop, label %out
out:
  ret void
})");
  auto D = deps(F, "c");
  ASSERT_TRUE(D.Precise);
  EXPECT_EQ(names(D.Reads.getArrayRef()), (std::vector<std::string>{"s"}));
  EXPECT_TRUE(D.Anchors.empty());
}

TEST_F(Decisions, ArgumentsAndCallResultsAreAnchors) {
  Function &F = parse(R"(
define void @f(i32 %arg) {
  %r = call i32 @get()
  %s = add i32 %r, %arg
  %m = call i32 @llvm.smax.i32(i32 %s, i32 0)
  %c = icmp eq i32 %m, 1
  ret void
}
declare i32 @llvm.smax.i32(i32, i32))");
  auto D = deps(F, "c");
  ASSERT_TRUE(D.Precise);
  EXPECT_TRUE(D.Reads.empty());
  // The pure intrinsic is walked through; the call and argument remain.
  EXPECT_EQ(names(D.Anchors.getArrayRef()),
            (std::vector<std::string>{"r", "arg"}));
}

TEST_F(Decisions, InvokeResultsAndAtomicsKeepThePlainRule) {
  Function &F = parse(R"(
define void @f() personality i8* null {
entry:
  %r = invoke i32 @get() to label %ok unwind label %bad
ok:
  %c = icmp eq i32 %r, 1
  %x = atomicrmw add i32* @g, i32 1 seq_cst
  %d = icmp eq i32 %x, 1
  ret void
bad:
  %lp = landingpad { i8*, i32 } cleanup
  ret void
})");
  EXPECT_FALSE(deps(F, "c").Precise);
  EXPECT_FALSE(deps(F, "d").Precise);
}

TEST_F(Decisions, RepeatedDecisionsAreTheDominatedOnes) {
  // The address %p is decided before the load (dominates the store in the
  // same block and the store in %then); %q is decided only in the two
  // branches of a diamond, neither dominating the other.
  Function &F = parse(R"(
define void @f(i32* %base, i1 %b) {
entry:
  %i = load i32, i32* @g
  %p = getelementptr i32, i32* %base, i32 %i
  %v = load i32, i32* %p
  store i32 %v, i32* %p
  %q = getelementptr i32, i32* %base, i32 1
  br i1 %b, label %then, label %else
then:
  store i32 1, i32* %p
  store i32 1, i32* %q
  br label %join
else:
  store i32 2, i32* %q
  br label %join
join:
  ret void
})");
  std::vector<std::pair<Instruction *, Value *>> Sites;
  for (Instruction &I : instructions(F))
    if (Value *P = getLoadStorePointerOperand(&I))
      if (!isa<GlobalVariable>(P))
        Sites.emplace_back(&I, P);
  ASSERT_EQ(Sites.size(), 5u); // load %p, store %p, store %p, store %q x2
  SmallVector<bool, 32> R = repeatedDecisions(F, Sites);
  EXPECT_EQ(std::vector<bool>(R.begin(), R.end()),
            (std::vector<bool>{false, true, true, false, false}));
  // Two decisions on one value at one site: the later one repeats.
  Sites = {{Sites[0].first, Sites[0].second},
           {Sites[0].first, Sites[0].second}};
  R = repeatedDecisions(F, Sites);
  EXPECT_EQ(std::vector<bool>(R.begin(), R.end()),
            (std::vector<bool>{false, true}));
}
