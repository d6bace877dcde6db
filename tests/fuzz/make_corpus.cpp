// Writes the seed corpora under tests/fuzz/corpus/<target>/ with the project's own writers, so
// every seed is an input the real code produces (tests/fuzz/README.md):
//   make_fuzz_corpus <tests/fuzz/corpus>
// Small on purpose: libFuzzer grows its own corpus from them.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <variant>
#include <unistd.h>
#include <vector>

#include "runtime/control/job_registry.hpp"
#include "runtime/frontend/job_file.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "protocol/codec.hpp"
#include "protocol/credential.hpp"
#include "checkpoint/storage/manifest.hpp"

namespace {
namespace fs = std::filesystem;
using namespace yadokari;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// One default message of every type, by variant index.
template <std::size_t... I>
std::vector<protocol::Message> every_message_type(std::index_sequence<I...>) {
  return {protocol::Message(std::in_place_index<I>)...};
}

void protocol_seeds(const fs::path& dir) {
  auto messages = every_message_type(std::make_index_sequence<std::variant_size_v<protocol::Message>>{});
  protocol::RegisterRank reg;
  reg.job_id = "job-1";
  reg.secret = "0123456789abcdef0123456789abcdef";
  reg.logical_rank = 1;
  reg.world_size = 2;
  reg.pid = 4242;
  reg.hostname = "node1";
  reg.flavour = "openmpi";
  messages.emplace_back(reg);
  protocol::CutReport cut;
  cut.epoch = 3;
  cut.logical_rank = 1;
  cut.counts.resize(2);
  messages.emplace_back(cut);
  for (std::size_t i = 0; i < messages.size(); ++i)
    write_text(dir / ("message-" + std::to_string(i)), protocol::encode(messages[i]));
}

void credential_seeds(const fs::path& dir) {
  write_text(dir / "credential",
             protocol::make_credential("0123456789abcdef0123456789abcdef", std::string(32, '\x5a')));
  write_text(dir / "bare-secret", "0123456789abcdef0123456789abcdef");
}

void image_seeds(const fs::path& dir) {
  fs::create_directories(dir);
  image::ImageHeader header;
  header.job_id = "job-1";
  header.rank = 1;
  header.world_size = 2;
  header.epoch = 3;
  header.flavour = "mpich";
  header.created_unix_ns = 1;
  header.binaries.push_back({"/bin/app", image::IdentityKind::build_id, std::string(20, '\x11'), 4096});
  std::vector<std::byte> page(2 * 4096 + 100, std::byte{0});
  page[5] = std::byte{7};
  page[2 * 4096 + 3] = std::byte{9};
  const image::AreaInfo area{image::AreaKind::other, "data", 0x1000};
  {
    image::ImageWriter writer((dir / "plain").string(), header, {0, false});
    writer.add_area(area, page.data(), 64);
    writer.finish();
  }
  {
    image::ImageWriter writer((dir / "zero-pages").string(), header, {0, true});
    writer.add_area(area, page.data(), page.size());
    writer.finish();
  }
  {
    image::ImageWriter writer((dir / "zstd").string(), header, {1, true});
    writer.add_area(area, page.data(), page.size());
    writer.finish();
  }
  {
    image::ImageWriter writer((dir / "no-areas").string(), header, {});
    writer.finish();
  }
}

void manifest_seeds(const fs::path& dir) {
  storage::Manifest manifest;
  manifest.epoch = 3;
  manifest.job_id = "job-1";
  manifest.world_size = 2;
  manifest.flavour = "openmpi";
  manifest.commit_time = "2000-01-01T00:00:00Z";
  manifest.images.push_back({0, "rank-0.img", 4096, 0x1234, {}, 0.5, 1.5});
  manifest.images.push_back({1, "rank-1.img", 8192, 0x5678, {"node1", "node2"}, 0.25, 2.0});
  write_text(dir / "two-ranks", storage::to_json_text(manifest));
}

void job_file_seeds(const fs::path& dir) {
  const fs::path scratch = fs::temp_directory_path() / ("yadokari-corpus-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  frontend::write_job_file(scratch, {"/bin/app", {"-x", "1"}, "mpich", 4, "job-1", "--bind-to none", "a,b"});
  fs::create_directories(dir);
  fs::copy_file(frontend::job_file_path(scratch), dir / "job.json", fs::copy_options::overwrite_existing);
  fs::remove_all(scratch);
}

void job_registry_seeds(const fs::path& dir) {
  const fs::path scratch = fs::temp_directory_path() / ("yadokari-corpus-" + std::to_string(getpid()));
  fs::create_directories(scratch);
  control::JobRecord record;
  record.job_id = "job-1";
  record.pid = 1;  // alive everywhere, so the record is kept rather than cleaned up
  record.status_endpoint = "tcp://127.0.0.1:5555";
  record.credential = protocol::make_credential("0123456789abcdef0123456789abcdef", std::string(32, '\x5a'));
  record.app = "/bin/app";
  record.flavour = "openmpi";
  record.ranks = 4;
  record.started = "2000-01-01T00:00:00Z";
  {
    const control::PublishedJob job(scratch, record);
    fs::create_directories(dir);
    fs::copy_file(job.file(), dir / "record.json", fs::copy_options::overwrite_existing);
  }
  fs::remove_all(scratch);
}

// No writer exists for hostfiles (users write them): one line of each documented form.
void hostfile_seeds(const fs::path& dir) {
  write_text(dir / "forms", "# comment\nnode1\nnode2 slots=4\nnode3:2  # trailing\n\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " <corpus dir>\n";
    return 2;
  }
  const fs::path root = argv[1];
  protocol_seeds(root / "protocol_decode");
  credential_seeds(root / "protocol_credential");
  image_seeds(root / "image_reader");
  image_seeds(root / "image_checksummed");
  manifest_seeds(root / "manifest");
  job_file_seeds(root / "job_file");
  job_registry_seeds(root / "job_registry");
  hostfile_seeds(root / "hostfile");
  return 0;
}
