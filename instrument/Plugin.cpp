//===- instrument/Plugin.cpp - Pass plugin entry point (LLVM 14 new PM) ---===//
//
// Registered at OptimizerLast, where TSan instruments: the IR has been
// optimised (at -O1 and above) so fewer, register-promoted accesses remain.
// `opt -passes=racepredict` reaches the same pass by name.
//
#include "CustomEvents.h"
#include "RacePredictPass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "racepredict", "0.1.0", [](PassBuilder &PB) {
            // Custom events first, on the IR as written (before inlining).
            PB.registerPipelineStartEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(racepredict::CustomEventsPass());
                });
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(racepredict::RacePredictPass());
                });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name == "racepredict-events") {
                    MPM.addPass(racepredict::CustomEventsPass());
                    return true;
                  }
                  if (Name != "racepredict")
                    return false;
                  MPM.addPass(racepredict::RacePredictPass());
                  return true;
                });
          }};
}
