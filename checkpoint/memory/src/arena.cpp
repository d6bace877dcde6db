#include "checkpoint/memory/src/arena.hpp"

#include <sys/mman.h>

#include <cstring>

#include "checkpoint/memory/src/diag.hpp"
#include "checkpoint/memory/src/layout.hpp"

namespace yadokari::memory {
namespace {

// Chunk layout: [prev_size][head][payload...]. prev_size is meaningful only while the previous
// chunk is free; head = size | flags. Free chunks keep their list links in the payload.
// Payload addresses are 16-byte aligned; sizes are multiples of 16.
constexpr std::size_t kInUse = 1, kPrevInUse = 2, kFlags = 3;
constexpr std::size_t kHdr = 16, kAlign = 16, kMinChunk = 32;
constexpr std::size_t kMaxRequest = std::size_t{1} << 46;
constexpr std::size_t kGrowStep = std::size_t{1} << 20;
constexpr std::uint64_t kMagic = 0x796b2d6172656e61;  // "yk-arena"

struct Chunk {
  std::size_t prev_size;
  std::size_t head;
  Chunk* fd;
  Chunk* bk;

  std::size_t size() const { return head & ~kFlags; }
  bool in_use() const { return head & kInUse; }
  bool prev_in_use() const { return head & kPrevInUse; }
  Chunk* at_offset(std::size_t off) { return reinterpret_cast<Chunk*>(reinterpret_cast<char*>(this) + off); }
  Chunk* next() { return at_offset(size()); }
  Chunk* prev() { return reinterpret_cast<Chunk*>(reinterpret_cast<char*>(this) - prev_size); }
  void* mem() { return reinterpret_cast<char*>(this) + kHdr; }
  static Chunk* of(const void* p) {
    return reinterpret_cast<Chunk*>(const_cast<char*>(static_cast<const char*>(p)) - kHdr);
  }
};

// Bins: 64 exact bins below 1 KiB (index = size/16), then 4 bins per power of two.
constexpr int kSmallLimit = 1024;
constexpr int kBins = 64 + 4 * (64 - 10);

int bin_index(std::size_t sz) {
  if (sz < kSmallLimit) return static_cast<int>(sz >> 4);
  int lg = 63 - __builtin_clzl(sz);
  int sub = static_cast<int>((sz >> (lg - 2)) & 3);
  return 64 + (lg - 10) * 4 + sub;
}

std::size_t request_size(std::size_t n) {
  if (n > kMaxRequest) return 0;
  std::size_t sz = (n + kHdr + kAlign - 1) & ~(kAlign - 1);
  return sz < kMinChunk ? kMinChunk : sz;
}

}  // namespace

struct ArenaHeader {
  std::uint64_t magic;
  std::uintptr_t base;
  std::uintptr_t reserve_end;
  std::uintptr_t committed_end;
  std::uintptr_t first;  // first chunk
  Chunk* top;            // the wilderness: always last, never in use, never in a bin
  std::size_t in_use;
  std::uint64_t binmap[(kBins + 63) / 64];
  Chunk* bins[kBins];
};

namespace {

// Allocator internals as free functions over the header: keeps the class surface small.
struct Impl {
  ArenaHeader* h;

  void mark(int i) { h->binmap[i >> 6] |= std::uint64_t{1} << (i & 63); }
  void unmark(int i) { h->binmap[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }

  void insert(Chunk* c) {
    int i = bin_index(c->size());
    c->bk = nullptr;
    c->fd = h->bins[i];
    if (c->fd) c->fd->bk = c;
    h->bins[i] = c;
    mark(i);
  }

  void unlink(Chunk* c) {
    int i = bin_index(c->size());
    if (c->bk)
      c->bk->fd = c->fd;
    else
      h->bins[i] = c->fd;
    if (c->fd) c->fd->bk = c->bk;
    if (!h->bins[i]) unmark(i);
  }

  // Index of the first non-empty bin >= i, or -1.
  int next_bin(int i) const {
    for (int w = i >> 6; w < static_cast<int>(sizeof h->binmap / 8); ++w) {
      std::uint64_t bits = h->binmap[w];
      if (w == (i >> 6)) bits &= ~std::uint64_t{0} << (i & 63);
      if (bits) return w * 64 + __builtin_ctzll(bits);
    }
    return -1;
  }

  bool grow(std::size_t need) {
    std::size_t inc = (need + kGrowStep - 1) & ~(kGrowStep - 1);
    if (h->committed_end + inc > h->reserve_end) return false;
    if (mprotect(reinterpret_cast<void*>(h->committed_end), inc, PROT_READ | PROT_WRITE) != 0) return false;
    h->committed_end += inc;
    h->top->head += inc;
    return true;
  }

  // Turns in-use chunk c's tail beyond sz into a free chunk (if big enough to be one).
  void split(Chunk* c, std::size_t sz) {
    std::size_t rem = c->size() - sz;
    if (rem < kMinChunk) return;
    c->head = sz | kInUse | (c->head & kPrevInUse);
    Chunk* r = c->at_offset(sz);
    r->head = rem | kInUse | kPrevInUse;
    release(r);  // in_use counted c's whole size; release() takes the tail's share off
  }

  Chunk* from_bins(std::size_t sz) {
    int i = bin_index(sz);
    Chunk* found = nullptr;
    if (h->bins[i]) {
      for (Chunk* c = h->bins[i]; c; c = c->fd)
        if (c->size() >= sz) {
          found = c;
          break;
        }
    }
    if (!found) {
      int j = next_bin(i + 1);
      if (j < 0) return nullptr;
      found = h->bins[j];  // every chunk in a higher bin is big enough
    }
    unlink(found);
    found->head |= kInUse;
    found->next()->head |= kPrevInUse;
    h->in_use += found->size();
    split(found, sz);
    return found;
  }

  Chunk* from_top(std::size_t sz) {
    if (h->top->size() < sz + kMinChunk && !grow(sz + kMinChunk - h->top->size())) return nullptr;
    Chunk* c = h->top;
    std::size_t rest = c->size() - sz;
    c->head = sz | kInUse | (c->head & kPrevInUse);
    h->top = c->at_offset(sz);
    h->top->head = rest | kPrevInUse;
    h->in_use += sz;
    return c;
  }

  // Frees in-use chunk c: coalesces with free neighbours and the top.
  void release(Chunk* c) {
    std::size_t sz = c->size();
    h->in_use -= sz;
    c->head &= ~kInUse;
    if (!c->prev_in_use()) {
      Chunk* p = c->prev();
      unlink(p);
      sz += p->size();
      c = p;
    }
    Chunk* n = c->at_offset(sz);
    if (n == h->top) {
      c->head = (sz + n->size()) | (c->head & kPrevInUse);
      h->top = c;
      return;
    }
    if (!n->in_use()) {
      unlink(n);
      sz += n->size();
    }
    c->head = sz | (c->head & kPrevInUse);
    Chunk* after = c->at_offset(sz);
    after->prev_size = sz;
    after->head &= ~kPrevInUse;
    insert(c);
  }

  bool valid_live(const void* p) const {
    auto a = reinterpret_cast<std::uintptr_t>(p);
    if (a & (kAlign - 1)) return false;
    if (a < h->first + kHdr || a >= reinterpret_cast<std::uintptr_t>(h->top) + kHdr) return false;
    const Chunk* c = Chunk::of(p);
    return c->in_use() && c->size() >= kMinChunk &&
           reinterpret_cast<std::uintptr_t>(c) + c->size() <= reinterpret_cast<std::uintptr_t>(h->top);
  }
};

}  // namespace

ArenaHeader* Arena::h() { return reinterpret_cast<ArenaHeader*>(this); }
const ArenaHeader* Arena::h() const { return reinterpret_cast<const ArenaHeader*>(this); }

bool arena_commit(std::uintptr_t base, std::uintptr_t end) {
  std::size_t len = (end - base + kPage - 1) & ~(kPage - 1);
  return mprotect(reinterpret_cast<void*>(base), len, PROT_READ | PROT_WRITE) == 0;
}

Arena* Arena::create(std::uintptr_t base, std::size_t reserve) {
  void* p = mmap(reinterpret_cast<void*>(base), reserve, PROT_NONE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  if (reinterpret_cast<std::uintptr_t>(p) != base) {  // pre-4.17 kernels ignore the flag
    munmap(p, reserve);
    return nullptr;
  }
  if (!arena_commit(base, base + kGrowStep)) return nullptr;
  auto* hd = reinterpret_cast<ArenaHeader*>(base);
  std::memset(hd, 0, sizeof *hd);
  hd->magic = kMagic;
  hd->base = base;
  hd->reserve_end = base + reserve;
  hd->committed_end = base + kGrowStep;
  // First chunk such that its payload is 16-aligned (chunk header is 16 bytes).
  hd->first = (base + sizeof(ArenaHeader) + kAlign - 1) & ~(kAlign - 1);
  hd->top = reinterpret_cast<Chunk*>(hd->first);
  hd->top->head = (hd->committed_end - hd->first) | kPrevInUse;
  return reinterpret_cast<Arena*>(base);
}

void* Arena::malloc(std::size_t n) {
  std::size_t sz = request_size(n);
  if (!sz) return nullptr;
  Impl im{h()};
  Chunk* c = im.from_bins(sz);
  if (!c) c = im.from_top(sz);
  return c ? c->mem() : nullptr;
}

void Arena::free(void* p) {
  Impl im{h()};
  if (!im.valid_live(p)) fatal("free(): invalid pointer or double free in the application arena");
  im.release(Chunk::of(p));
}

void* Arena::realloc(void* p, std::size_t n) {
  if (!p) return malloc(n);
  Impl im{h()};
  if (!im.valid_live(p)) fatal("realloc(): invalid pointer in the application arena");
  std::size_t sz = request_size(n);
  if (!sz) return nullptr;
  Chunk* c = Chunk::of(p);
  std::size_t cur = c->size();
  if (cur >= sz) {
    im.split(c, sz);
    return p;
  }
  Chunk* nx = c->next();
  if (nx == h()->top) {
    std::size_t avail = cur + nx->size();
    if (avail >= sz + kMinChunk || im.grow(sz + kMinChunk - avail)) {
      std::size_t rest = cur + h()->top->size() - sz;
      c->head = sz | kInUse | (c->head & kPrevInUse);
      h()->top = c->at_offset(sz);
      h()->top->head = rest | kPrevInUse;
      h()->in_use += sz - cur;
      return p;
    }
  } else if (!nx->in_use() && cur + nx->size() >= sz) {
    im.unlink(nx);
    std::size_t merged = cur + nx->size();
    c->head = merged | kInUse | (c->head & kPrevInUse);
    c->next()->head |= kPrevInUse;
    h()->in_use += merged - cur;
    im.split(c, sz);
    return p;
  }
  void* q = malloc(n);
  if (!q) return nullptr;
  std::memcpy(q, p, cur - kHdr);
  im.release(c);
  return q;
}

void* Arena::memalign(std::size_t align, std::size_t n) {
  if (align <= kAlign) return malloc(n);
  std::size_t sz = request_size(n);
  if (!sz || align > kMaxRequest) return nullptr;
  void* raw = malloc(sz + align + kMinChunk);
  if (!raw) return nullptr;
  Impl im{h()};
  Chunk* c = Chunk::of(raw);
  auto mem = reinterpret_cast<std::uintptr_t>(raw);
  std::uintptr_t aligned = (mem + align - 1) & ~(align - 1);
  if (aligned != mem) {
    while (aligned - mem < kMinChunk) aligned += align;  // the leading piece must be a chunk
    std::size_t lead = aligned - mem;
    std::size_t total = c->size();
    Chunk* a = Chunk::of(reinterpret_cast<void*>(aligned));
    a->head = (total - lead) | kInUse | kPrevInUse;
    c->head = lead | kInUse | (c->head & kPrevInUse);
    im.release(c);  // frees the lead (coalescing backwards) and updates a's prev fields
    c = a;
  }
  im.split(c, sz);
  return c->mem();
}

std::size_t Arena::usable_size(const void* p) const {
  Impl im{const_cast<ArenaHeader*>(h())};
  if (!im.valid_live(p)) return 0;
  return Chunk::of(p)->size() - kHdr;
}

std::uintptr_t Arena::base() const { return h()->base; }
std::uintptr_t Arena::used_end() const { return reinterpret_cast<std::uintptr_t>(h()->top) + kHdr; }
std::uintptr_t Arena::committed_end() const { return h()->committed_end; }
std::size_t Arena::bytes_in_use() const { return h()->in_use; }

const char* Arena::check() const {
  const ArenaHeader* hd = h();
  if (hd->magic != kMagic) return "bad magic";
  std::size_t used = 0, free_chunks = 0;
  bool prev_free = false;
  auto* c = reinterpret_cast<Chunk*>(hd->first);
  while (c != hd->top) {
    auto a = reinterpret_cast<std::uintptr_t>(c);
    if (a >= reinterpret_cast<std::uintptr_t>(hd->top)) return "chunk walk overran the top";
    if (c->size() < kMinChunk || (c->size() & (kAlign - 1))) return "bad chunk size";
    if (c->prev_in_use() == prev_free) return "prev-in-use flag disagrees with the previous chunk";
    if (c->in_use()) {
      used += c->size();
    } else {
      if (prev_free) return "two adjacent free chunks";
      if (c->next()->prev_size != c->size()) return "free chunk footer mismatch";
      ++free_chunks;
    }
    prev_free = !c->in_use();
    c = c->next();
  }
  if (hd->top->prev_in_use() == prev_free) return "top's prev-in-use flag is wrong";
  if (hd->top->in_use()) return "top marked in use";
  if (reinterpret_cast<std::uintptr_t>(hd->top) + hd->top->size() != hd->committed_end)
    return "top does not end at the committed end";
  if (used != hd->in_use) return "in-use byte count mismatch";
  std::size_t listed = 0;
  for (int i = 0; i < kBins; ++i) {
    bool marked = hd->binmap[i >> 6] & (std::uint64_t{1} << (i & 63));
    if (marked != (hd->bins[i] != nullptr)) return "bin map disagrees with the bins";
    for (Chunk* f = hd->bins[i]; f; f = f->fd) {
      if (f->in_use()) return "in-use chunk on a free list";
      if (bin_index(f->size()) != i) return "chunk in the wrong bin";
      if (f->fd && f->fd->bk != f) return "broken free list links";
      ++listed;
    }
  }
  if (listed != free_chunks) return "free chunks missing from the bins";
  return nullptr;
}

}  // namespace yadokari::memory
