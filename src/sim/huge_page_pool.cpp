#include "sim/huge_page_pool.h"

#include <mutex>
#include <new>
#include <vector>

#include "base/check.h"
#include "sim/huge_page_allocator.h"

namespace sbrdma::sim {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
constexpr std::size_t kClasses = HugePagePool::kMaxBlock / HugePagePool::kAlign + 1;

/// A freed block, linked into its size class's list.
struct FreeBlock {
  FreeBlock* next;
};

class Pool {
 public:
  void* allocate(std::size_t cls) {
    const std::lock_guard<std::mutex> lock(mu_);
    if (FreeBlock* b = free_[cls]; b != nullptr) {
      free_[cls] = b->next;
      return b;
    }
    const std::size_t bytes = cls * HugePagePool::kAlign;
    if (next_ == nullptr || bytes > left_) {
      void* chunk = map_huge(kChunkBytes);
      if (chunk == nullptr) base::out_of_memory("cannot map the simulated engines' state");
      next_ = static_cast<std::byte*>(chunk);
      left_ = kChunkBytes;  // the old chunk's rest is left uncarved
    }
    void* p = next_;
    next_ += bytes;
    left_ -= bytes;
    return p;
  }

  void deallocate(void* p, std::size_t cls) noexcept {
    const std::lock_guard<std::mutex> lock(mu_);
    free_[cls] = ::new (p) FreeBlock{free_[cls]};
  }

 private:
  std::mutex mu_;
  std::vector<FreeBlock*> free_ = std::vector<FreeBlock*>(kClasses, nullptr);
  std::byte* next_ = nullptr;
  std::size_t left_ = 0;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: blocks may be freed during static teardown
  return *p;
}

std::size_t size_class(std::size_t bytes) {
  return (bytes + HugePagePool::kAlign - 1) / HugePagePool::kAlign;
}

}  // namespace

void* HugePagePool::allocate(std::size_t bytes) {
  if (!HugePagePool::kPooled || bytes > kMaxBlock || bytes == 0) {
    return ::operator new (bytes == 0 ? 1 : bytes, std::align_val_t{kAlign});
  }
  return pool().allocate(size_class(bytes));
}

void HugePagePool::deallocate(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (!HugePagePool::kPooled || bytes > kMaxBlock || bytes == 0) {
    ::operator delete (p, std::align_val_t{kAlign});
    return;
  }
  pool().deallocate(p, size_class(bytes));
}

}  // namespace sbrdma::sim
