#include "runtime/launch/launcher.hpp"

#include <unistd.h>

#include <charconv>

namespace yadokari::launch {
namespace fs = std::filesystem;

std::vector<HostSlots> parse_hosts(std::string_view spec) {
  std::vector<HostSlots> hosts;
  std::size_t start = 0;
  while (start <= spec.size()) {
    const std::size_t end = std::min(spec.find(',', start), spec.size());
    const std::string_view entry = spec.substr(start, end - start);
    start = end + 1;
    const std::size_t colon = entry.find(':');
    HostSlots host{std::string(entry.substr(0, colon)), 1};
    bool ok = !host.host.empty();
    if (ok && colon != std::string_view::npos) {
      const std::string_view slots = entry.substr(colon + 1);
      const auto [rest, error] = std::from_chars(slots.data(), slots.data() + slots.size(), host.slots);
      ok = error == std::errc{} && rest == slots.data() + slots.size() && host.slots >= 1;
    }
    if (!ok)
      throw LaunchError("bad --hosts entry '" + std::string(entry) +
                        "' (expected host or host:slots, slots at least 1)");
    hosts.push_back(std::move(host));
  }
  return hosts;
}

std::vector<std::string> split_shell_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\') {
      if (++i == text.size()) throw LaunchError("--mpi-args ends with a lone backslash");
      word.push_back(text[i]);
    } else if (c == '\'') {
      const std::size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) throw LaunchError("--mpi-args has an unterminated ' quote");
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      for (++i;; ++i) {
        if (i == text.size()) throw LaunchError("--mpi-args has an unterminated \" quote");
        if (text[i] == '"') break;
        if (text[i] == '\\' && i + 1 < text.size() &&
            std::string_view("\"\\$`").find(text[i + 1]) != std::string_view::npos)
          ++i;
        word.push_back(text[i]);
      }
    } else {
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string_view launcher_name(MpiFlavour flavour) {
  return flavour == MpiFlavour::openmpi ? "mpirun.openmpi" : "mpiexec.mpich";
}

std::optional<fs::path> find_in_path(std::string_view name, std::string_view path_list) {
  std::size_t start = 0;
  while (start <= path_list.size()) {
    const std::size_t end = std::min(path_list.find(':', start), path_list.size());
    const std::string_view dir = path_list.substr(start, end - start);
    start = end + 1;
    const fs::path candidate = fs::path(dir.empty() ? "." : std::string(dir)) / std::string(name);
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

namespace {

std::string host_list(const std::vector<HostSlots>& hosts) {
  std::string list;
  for (const auto& h : hosts) {
    if (!list.empty()) list += ',';
    list += h.host + ':' + std::to_string(h.slots);
  }
  return list;
}

}  // namespace

std::vector<std::string> launcher_argv(const LaunchPlan& plan) {
  std::vector<std::string> argv{plan.launcher.string()};
  if (plan.flavour == MpiFlavour::openmpi) {
    if (plan.running_as_root) argv.emplace_back("--allow-run-as-root");
    // More ranks than cores is normal for us (small machines, consolidation after a failure).
    argv.emplace_back("--oversubscribe");
    argv.insert(argv.end(), {"-n", std::to_string(plan.ranks)});
    if (!plan.hosts.empty()) argv.insert(argv.end(), {"--host", host_list(plan.hosts)});
    for (const auto& [name, value] : plan.rank_only_env) argv.insert(argv.end(), {"-x", name + '=' + value});
    for (const auto& name : plan.forwarded_env) argv.insert(argv.end(), {"-x", name});
  } else {
    argv.insert(argv.end(), {"-n", std::to_string(plan.ranks)});
    if (!plan.hosts.empty()) argv.insert(argv.end(), {"-hosts", host_list(plan.hosts)});
    for (const auto& [name, value] : plan.rank_only_env) argv.insert(argv.end(), {"-genv", name, value});
  }
  argv.insert(argv.end(), plan.mpi_args.begin(), plan.mpi_args.end());
  argv.insert(argv.end(), plan.app_argv.begin(), plan.app_argv.end());
  return argv;
}

}  // namespace yadokari::launch
