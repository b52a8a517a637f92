//===- support/forwarding_buf.cpp - A stream buffer that keeps errors -----===//
#include "racepredict/support/forwarding_buf.h"

#include <cerrno>

namespace racepredict {

bool ForwardingBuf::put(const char *s, size_t n) {
  errno = 0;
  if (out_->sputn(s, static_cast<std::streamsize>(n)) ==
      static_cast<std::streamsize>(n))
    return true;
  if (!failed_)
    errno_ = errno;
  failed_ = true;
  return false;
}

ForwardingBuf::int_type ForwardingBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof()))
    return traits_type::not_eof(c);
  char ch = traits_type::to_char_type(c);
  return forward(&ch, 1) ? c : traits_type::eof();
}

std::streamsize ForwardingBuf::xsputn(const char *s, std::streamsize n) {
  return forward(s, static_cast<size_t>(n)) ? n : 0;
}

int ForwardingBuf::sync() {
  errno = 0;
  int rc = out_->pubsync();
  if (rc != 0 && !failed_) {
    errno_ = errno;
    failed_ = true;
  }
  return rc;
}

} // namespace racepredict
