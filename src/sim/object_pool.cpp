#include "sim/object_pool.h"

#include <mutex>
#include <new>
#include <vector>

#include "base/check.h"
#include "base/mapped_block.h"

namespace sbrdma::sim {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{16} << 20;
constexpr std::size_t kClasses = ObjectPool::kMaxBlock / ObjectPool::kAlign + 1;

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
    const std::size_t bytes = cls * ObjectPool::kAlign;
    if (next_ == nullptr || bytes > left_) {
      void* chunk = base::map_block(kChunkBytes);
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
  return (bytes + ObjectPool::kAlign - 1) / ObjectPool::kAlign;
}

}  // namespace

void* ObjectPool::allocate(std::size_t bytes) {
  if (!ObjectPool::kPooled || bytes > kMaxBlock || bytes == 0) {
    return ::operator new (bytes == 0 ? 1 : bytes, std::align_val_t{kAlign});
  }
  return pool().allocate(size_class(bytes));
}

void ObjectPool::deallocate(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (!ObjectPool::kPooled || bytes > kMaxBlock || bytes == 0) {
    ::operator delete (p, std::align_val_t{kAlign});
    return;
  }
  pool().deallocate(p, size_class(bytes));
}

}  // namespace sbrdma::sim
