// later.h — work whose answer is wanted later: started on a thread of its own when it is
// worth one (the caller goes on with other work meanwhile, on a second core), else done when
// its answer is taken. Should no thread start (a pids limit, say), it is done when taken too.
#pragma once

#include <future>
#include <system_error>
#include <type_traits>
#include <utility>

namespace os {

template <class F>
std::future<std::invoke_result_t<F>> later(bool own_thread, F work) {
  if (own_thread) {
    try {
      return std::async(std::launch::async, work);
    } catch (const std::system_error&) {
    }
  }
  return std::async(std::launch::deferred, std::move(work));
}

}  // namespace os
