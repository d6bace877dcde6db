// Builds checkpoint directories for the `yadokari restart` tests, with real images:
//   make_checkpoint DIR APP WORLD [options]
// writes DIR/job.json (APP, WORLD ranks, --flavour, default openmpi) and committed epochs
// 1..--epochs (default 1), each with --images images (default WORLD) whose headers name
// --image-flavour (default --flavour) and APP's current identity.
//   --corrupt-newest     flip a bit inside area 'heap' of rank-1.img of the newest epoch
//   --replace-app FILE   afterwards, copy FILE over APP (the binary changed since)
//   --no-epochs          only job.json
// The job's one argument is DIR/go, which exists, so ckpt_app and wait_for_file end at once.
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/frontend/job_file.hpp"
#include "checkpoint/image/binary_identity.hpp"
#include "checkpoint/image/image_reader.hpp"
#include "checkpoint/image/image_writer.hpp"
#include "checkpoint/storage/epoch_store.hpp"

using namespace yadokari;
namespace fs = std::filesystem;

namespace {

struct Options {
  fs::path dir;
  std::string app;
  int world = 0;
  int epochs = 1;
  int images = -1;
  std::string flavour = "openmpi";
  std::string image_flavour;
  bool corrupt_newest = false;
  std::string replace_app;
};

void write_epoch(const storage::EpochStore& store, const Options& o, std::uint64_t epoch) {
  store.create_epoch_dir(epoch);
  storage::Manifest manifest;
  manifest.epoch = epoch;
  manifest.job_id = "yk-made";
  manifest.world_size = static_cast<std::uint32_t>(o.images);
  manifest.flavour = o.image_flavour;
  for (int r = 0; r < o.images; ++r) {
    image::ImageHeader header;
    header.job_id = manifest.job_id;
    header.rank = static_cast<std::uint32_t>(r);
    header.world_size = static_cast<std::uint32_t>(o.images);
    header.epoch = epoch;
    header.flavour = o.image_flavour;
    header.binaries = {image::identify_file(o.app)};
    image::ImageWriter writer(store.rank_image_path(epoch, r).string(), header);
    std::vector<std::byte> heap(3 * 4096);
    for (std::size_t i = 0; i < heap.size(); ++i) heap[i] = static_cast<std::byte>((i * 7 + r) & 0xff);
    writer.add_area({image::AreaKind::heap_arena, "heap", 0x7f0000000000}, heap);
    manifest.images.push_back(storage::manifest_image(static_cast<std::uint32_t>(r), writer.finish()));
  }
  store.commit(epoch, manifest);
}

void corrupt(const fs::path& image) {
  const image::ImageReader reader(image.string());
  const auto* heap = reader.find("heap");
  std::fstream file(image, std::ios::in | std::ios::out | std::ios::binary);
  const auto at = static_cast<std::streamoff>(heap->data_offset + heap->stored_length / 2);
  file.seekg(at);
  char byte = 0;
  file.get(byte);
  file.seekp(at);
  file.put(static_cast<char>(byte ^ 0x04));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: make_checkpoint DIR APP WORLD [options]\n");
    return 2;
  }
  try {
    Options o;
    o.dir = argv[1];
    o.app = fs::absolute(argv[2]).string();
    o.world = std::stoi(argv[3]);
    bool epochs = true;
    for (int i = 4; i < argc; ++i) {
      const std::string arg = argv[i];
      auto next = [&] { return std::string(argv[++i]); };
      if (arg == "--epochs")
        o.epochs = std::stoi(next());
      else if (arg == "--images")
        o.images = std::stoi(next());
      else if (arg == "--flavour")
        o.flavour = next();
      else if (arg == "--image-flavour")
        o.image_flavour = next();
      else if (arg == "--corrupt-newest")
        o.corrupt_newest = true;
      else if (arg == "--replace-app")
        o.replace_app = next();
      else if (arg == "--no-epochs")
        epochs = false;
      else
        throw std::runtime_error("unknown option " + arg);
    }
    if (o.images < 0) o.images = o.world;
    if (o.image_flavour.empty()) o.image_flavour = o.flavour;
    fs::remove_all(o.dir);
    fs::create_directories(o.dir);
    // The app's one argument is a file that exists: ckpt_app/wait_for_file end at once.
    const fs::path go = fs::absolute(o.dir) / "go";
    std::ofstream{go};
    frontend::write_job_file(o.dir, {o.app, {go.string()}, o.flavour, o.world, "yk-made", "", ""});
    const storage::EpochStore store(o.dir);
    for (int e = 1; epochs && e <= o.epochs; ++e) write_epoch(store, o, static_cast<std::uint64_t>(e));
    if (o.corrupt_newest) corrupt(store.rank_image_path(static_cast<std::uint64_t>(o.epochs), 1));
    if (!o.replace_app.empty()) fs::copy_file(o.replace_app, o.app, fs::copy_options::overwrite_existing);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_checkpoint: %s\n", e.what());
    return 1;
  }
}
