//===- support/forwarding_buf.h - A stream buffer that keeps write errors -===//
//
// std::ostream reports a failed write as a state bit; the reason (errno of
// the write(2) that failed, ENOSPC, EPIPE...) is gone by the time anyone
// looks. Every output of the tools goes through one of these (or through
// Utf8Filter, which is one), so that the message can say why.
//
#pragma once

#include <streambuf>

namespace racepredict {

class ForwardingBuf : public std::streambuf {
public:
  explicit ForwardingBuf(std::streambuf *out) : out_(out) {}
  ForwardingBuf(const ForwardingBuf &) = delete;
  ForwardingBuf &operator=(const ForwardingBuf &) = delete;

  std::streambuf *underlying() const { return out_; }
  /// errno as it was after the first write that failed (0: none failed,
  /// or the system gave no reason).
  int writeErrno() const { return errno_; }

protected:
  /// Writes all of `s` to the underlying buffer; false if it did not.
  bool put(const char *s, size_t n);
  /// Every write comes here; a filter (Utf8Filter) changes what is put.
  virtual bool forward(const char *s, size_t n) { return put(s, n); }

  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char *s, std::streamsize n) override;
  int sync() override;

private:
  std::streambuf *out_;
  int errno_ = 0;
  bool failed_ = false;
};

} // namespace racepredict
