// Memory test program (C++): standard containers growing and shrinking, globals built by
// constructors before main (their heap blocks must be carried too), a global whose destructor
// prints at exit, a <random> engine on the stack. One line per iteration, then the call
// boundary (yk_memtest_boundary, from the preloaded test driver). Usage: containers [iterations]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <list>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" int yk_memtest_boundary(void) __attribute__((weak));

namespace {

std::vector<int> g_primes{2, 3, 5, 7, 11, 13, 17, 19, 23, 29};  // allocated before main
std::string g_banner = "a banner far too long for the small-string buffer of std::string";
std::map<std::string, std::vector<int>> g_index;

struct Reporter {
  ~Reporter() { std::printf("exit: %zu keys, banner %zu, primes %d\n", g_index.size(), g_banner.size(), g_primes[0]); }
} g_reporter;

struct Tree {
  int value;
  std::unique_ptr<Tree> left, right;
  explicit Tree(int v) : value(v) {}
};

void insert(std::unique_ptr<Tree>& t, int v) {
  if (!t)
    t = std::make_unique<Tree>(v);
  else
    insert(v < t->value ? t->left : t->right, v);
}

std::uint64_t walk(const std::unique_ptr<Tree>& t, std::uint64_t h) {
  if (!t) return h;
  h = walk(t->left, h) * 1099511628211ull ^ static_cast<std::uint64_t>(t->value);
  return walk(t->right, h);
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 50;
  std::mt19937_64 engine(42);
  std::vector<std::string> words;
  std::list<double> recent;
  std::unordered_map<int, std::string> names;
  std::unique_ptr<Tree> tree;
  std::string acc;
  std::vector<std::uint32_t> big;  // grows to tens of MiB: the arena commits more as it goes
  for (int i = 0; i < iterations; ++i) {
    for (int k = 0; k < 100000; ++k) big.push_back(static_cast<std::uint32_t>(k * i));
    std::uint64_t bs = 0;
    for (std::size_t k = 0; k < big.size(); k += 4099) bs = bs * 31 + big[k];
    std::uint64_t r = engine();
    std::string w = "w" + std::to_string(r % 100000) + std::string(static_cast<std::size_t>(r % 37), 'x');
    words.push_back(w);
    g_index[w.substr(0, 3)].push_back(i);
    recent.push_back(static_cast<double>(r % 1000) / 7.0);
    if (recent.size() > 8) recent.pop_front();
    names[static_cast<int>(r % 23)] = w;
    insert(tree, static_cast<int>(r % 10007));
    acc += w.substr(0, 2);
    if (acc.size() > 300) acc.erase(0, 150);
    if (i % 5 == 4) words.erase(words.begin(), words.begin() + static_cast<long>(words.size() / 3));
    g_primes[static_cast<std::size_t>(i) % g_primes.size()] += i;
    if (i % 7 == 0) g_banner += "!";

    double s = 0;
    for (double d : recent) s += d;
    std::size_t wl = 0;
    for (const auto& x : words) wl += x.size();
    std::cout << "iter " << i << " words " << words.size() << '/' << wl << " keys " << g_index.size() << " names "
              << names.size() << " tree " << std::hex << walk(tree, 0) << std::dec << " acc " << acc.size() << " mean "
              << s / static_cast<double>(recent.size()) << " primes " << g_primes[i % 10] << " banner "
              << g_banner.size() << " big " << big.size() << '/' << bs << '\n';
    if (yk_memtest_boundary) yk_memtest_boundary();
  }
  std::cout << "done " << acc << '\n';
  return 0;
}
