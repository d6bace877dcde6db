// Drives a fuzz target without libFuzzer, for the normal build and ctest (tests/fuzz/README.md):
//   fuzz_replay_<target> <corpus dir or file>... [--mutations N] [--verbose] [--save-mutation I]
// Runs every file given (directories: their files, sorted by name), then N mutations of them
// (truncations, bit flips, byte insertions and deletions, interesting bytes, spliced chunks)
// from a fixed seed, so every run feeds exactly the same inputs. A crash ends the process; an
// exception escaping the target is reported with the input that raised it, saved as
// replay-failure.bin in the current directory. A mutation that crashes or hangs (--verbose names
// the last input started) is written to mutation-<I>.bin by --save-mutation I, without running it.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.hpp"

namespace {
namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;

struct Input {
  std::string name;
  Bytes bytes;
};

Bytes read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<Input> load(const std::vector<std::string>& paths) {
  std::vector<Input> inputs;
  for (const auto& given : paths) {
    std::vector<fs::path> files;
    if (fs::is_directory(given)) {
      for (const auto& entry : fs::directory_iterator(given))
        if (entry.is_regular_file()) files.push_back(entry.path());
      std::sort(files.begin(), files.end());
    } else {
      files.emplace_back(given);
    }
    for (const auto& file : files) inputs.push_back({file.string(), read_bytes(file)});
  }
  return inputs;
}

// One random edit; the kinds are those that find parser bugs: lengths that lie (truncation,
// insertion, deletion), fields off by a bit, boundary values, and pieces of another input.
void mutate_once(Bytes& bytes, const std::vector<Input>& inputs, std::mt19937_64& random) {
  auto pick = [&random](std::size_t bound) { return bound == 0 ? 0 : random() % bound; };
  static constexpr std::uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '"', '{', '[', '-', '9', '\n', ':'};
  switch (random() % 6) {
    case 0:
      bytes.resize(pick(bytes.size() + 1));
      break;
    case 1:
      if (!bytes.empty()) bytes[pick(bytes.size())] ^= static_cast<std::uint8_t>(1u << (random() % 8));
      break;
    case 2:
      bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(pick(bytes.size() + 1)),
                   static_cast<std::uint8_t>(random()));
      break;
    case 3:
      if (!bytes.empty()) bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(pick(bytes.size())));
      break;
    case 4:
      if (!bytes.empty()) bytes[pick(bytes.size())] = kInteresting[pick(std::size(kInteresting))];
      break;
    default: {
      const Bytes& other = inputs[pick(inputs.size())].bytes;
      const std::size_t from = pick(other.size() + 1);
      const std::size_t length = pick(std::min<std::size_t>(other.size() - from, 64) + 1);
      bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(pick(bytes.size() + 1)),
                   other.begin() + static_cast<std::ptrdiff_t>(from),
                   other.begin() + static_cast<std::ptrdiff_t>(from + length));
    }
  }
}

bool run(const std::string& name, const Bytes& bytes, bool verbose) {
  if (verbose) std::cerr << "input " << name << " (" << bytes.size() << " bytes)\n";
  try {
    LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    return true;
  } catch (const std::exception& e) {
    std::cerr << "FAIL: input " << name << ": unexpected exception: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "FAIL: input " << name << ": unexpected exception of unknown type\n";
  }
  std::ofstream("replay-failure.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  std::cerr << "saved as replay-failure.bin\n";
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  long mutations = 0;
  bool verbose = false;
  long save = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--mutations" && i + 1 < argc)
      mutations = std::stol(argv[++i]);
    else if (arg == "--save-mutation" && i + 1 < argc)
      save = std::stol(argv[++i]);
    else if (arg == "--verbose")
      verbose = true;
    else
      paths.push_back(arg);
  }
  const std::vector<Input> inputs = load(paths);
  if (inputs.empty()) {
    std::cerr << "usage: " << argv[0] << " <corpus dir or file>... [--mutations N] [--verbose] (no input found)\n";
    return 2;
  }
  bool ok = true;
  if (save < 0)
    for (const auto& input : inputs) ok = run(input.name, input.bytes, verbose) && ok;
  std::mt19937_64 random(0x9e3779b97f4a7c15);  // fixed: the same mutations on every run and every machine
  for (long i = 0; i < std::max(mutations, save + 1); ++i) {
    const Input& base = inputs[random() % inputs.size()];
    Bytes bytes = base.bytes;
    for (int edits = 1 + static_cast<int>(random() % 4); edits > 0; --edits) mutate_once(bytes, inputs, random);
    if (i == save) {
      const std::string file = "mutation-" + std::to_string(i) + ".bin";
      std::ofstream(file, std::ios::binary)
          .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
      std::cout << "saved " << base.name << " mutation #" << i << " as " << file << "\n";
      return 0;
    }
    if (save >= 0) continue;
    ok = run(base.name + " mutation #" + std::to_string(i), bytes, verbose) && ok;
  }
  std::cout << inputs.size() << " corpus inputs and " << mutations << " mutations: " << (ok ? "ok" : "FAILED") << "\n";
  return ok ? 0 : 1;
}
