//===- replay/happens_before.cpp - Vector clocks of the replayed run ------===//
#include "happens_before.h"

#include "racepredict/trace/format.h"

namespace racepredict::rt {
namespace {

void joinInto(uint32_t *dst, const uint32_t *src, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i)
    if (src[i] > dst[i])
      dst[i] = src[i];
}

} // namespace

bool VectorClocks::init(uint32_t threads, uint32_t objects, SchedAlloc alloc) {
  n_ = threads;
  capacity_ = objects;
  size_t n = threads;
  rows_ = static_cast<uint32_t *>(alloc(sizeof(uint32_t) * n * n + 64));
  keys_ = static_cast<uint64_t *>(alloc(sizeof(uint64_t) * objects));
  objRows_ =
      static_cast<uint32_t *>(alloc(sizeof(uint32_t) * n * objects + 64));
  if (!rows_ || !keys_ || !objRows_)
    return false;
  // Epochs start at 1 so that "seen nothing of u" (0) is below every event.
  for (uint32_t t = 0; t < threads; ++t)
    row(t)[t] = 1;
  return true;
}

uint32_t *VectorClocks::object(uint64_t key, bool create) {
  // Keys are addresses; 0 never names an object, it marks a free slot.
  if (key == 0)
    key = 1;
  uint64_t h = key * 0x9E3779B97F4A7C15ull;
  uint32_t mask = capacity_ - 1;
  for (uint32_t i = static_cast<uint32_t>(h >> 32) & mask, probes = 0;
       probes < capacity_; i = (i + 1) & mask, ++probes) {
    if (keys_[i] == key)
      return objRows_ + static_cast<size_t>(i) * n_;
    if (keys_[i] == 0) {
      if (!create)
        return nullptr;
      // Keep a quarter free so that probing stays short.
      if (used_ + 1 > capacity_ - capacity_ / 4) {
        overflow_ = true;
        return nullptr;
      }
      keys_[i] = key;
      ++used_;
      return objRows_ + static_cast<size_t>(i) * n_;
    }
  }
  overflow_ = true;
  return nullptr;
}

void VectorClocks::acquire(uint32_t t, uint64_t key) {
  if (const uint32_t *o = object(key, false))
    joinInto(row(t), o, n_);
}

void VectorClocks::release(uint32_t t, uint64_t key) {
  if (uint32_t *o = object(key, true))
    joinInto(o, row(t), n_);
  ++row(t)[t];
}

void VectorClocks::fork(uint32_t parent, uint32_t child) {
  joinInto(row(child), row(parent), n_);
  ++row(parent)[parent];
}

void VectorClocks::join(uint32_t t, uint32_t child) {
  joinInto(row(t), row(child), n_);
}

void applyEvent(VectorClocks &vc, uint32_t t, unsigned kind,
                const uint64_t *ops, int n, uint64_t addr, uint32_t childSlot) {
  uint64_t obj = n > 0 ? ops[0] : 0;
  switch (kind) {
  case RP_FORK:
    if (childSlot != kNoThread)
      vc.fork(t, childSlot);
    break;
  case RP_JOIN:
    if (childSlot != kNoThread)
      vc.join(t, childSlot);
    break;
  case RP_ACQUIRE:
  case RP_RACQUIRE:
  case RP_SEMWAIT:
  case RP_RECV:    // the sends of its channel (as TSan)
  case RP_BARRIER: // departure: everything that arrived before
    vc.acquire(t, obj);
    break;
  case RP_WAIT: // return half: the notifies of the cond and the mutex
    vc.acquire(t, obj);
    if (n > 1)
      vc.acquire(t, ops[1]);
    break;
  case RP_RELEASE:
  case RP_SIGNAL:
  case RP_BROADCAST:
  case RP_SEMPOST:
  case RP_SEMINIT:
  case RP_SEND:
    vc.release(t, obj);
    break;
  case RP_ATOMIC_READ:
    vc.acquire(t, addr);
    break;
  case RP_ATOMIC_WRITE:
    vc.release(t, addr);
    break;
  case RP_ATOMIC_RMW:
    vc.acquire(t, addr);
    vc.release(t, addr);
    break;
  default: // begin/end, plain accesses, branches, tryfail: no order
    break;
  }
}

void applyHalf(VectorClocks &vc, uint32_t t, unsigned kind, uint64_t obj) {
  // Wait: releases its mutex (obj); barrier: arrives at the barrier (obj).
  (void)kind;
  vc.release(t, obj);
}

} // namespace racepredict::rt
