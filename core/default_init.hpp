// Vectors whose growth does not zero what it adds (ours): resize() of a std::vector value-
// initialises the new elements, a memset over buffers the next step overwrites anyway. On one
// small file's .bz2 compression (calgary book1, one block, one thread) that zeroing, of buffers
// reused from block to block whose contents are stale after the first block anyway, was 80% of
// the process's 2,267 page faults (lbzip2: 1,288) and most of its 8% gap to lbzip2.
#pragma once

#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace parcomp {

// An allocator (over Base) whose construct() with no arguments default-initialises: for
// trivial types, nothing is written.
template <typename T, typename Base = std::allocator<T>>
struct DefaultInitAllocator : Base {
  using value_type = T;
  template <typename U>
  struct rebind {
    using other = DefaultInitAllocator<U, typename std::allocator_traits<Base>::template rebind_alloc<U>>;
  };
  DefaultInitAllocator() = default;
  template <typename U, typename B>
  DefaultInitAllocator(const DefaultInitAllocator<U, B>& other) noexcept : Base(other) {}
  template <typename U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    std::allocator_traits<Base>::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

// Bytes that resize() leaves as they are (buffers the next step writes whole).
using RawBytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

}  // namespace parcomp
