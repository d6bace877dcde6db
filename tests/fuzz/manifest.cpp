// Fuzz target: an epoch's MANIFEST (storage::manifest_from_json_text, the parser EpochStore's
// read_manifest uses; docs/formats/manifest.md).
#include <string>

#include "tests/fuzz/fuzz_target.hpp"
#include "checkpoint/storage/manifest.hpp"
#include "checkpoint/storage/storage_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace storage = yadokari::storage;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const storage::Manifest manifest = storage::manifest_from_json_text(text, "MANIFEST");
    // What was accepted must survive being written and read again.
    if (!(storage::manifest_from_json_text(storage::to_json_text(manifest), "MANIFEST") == manifest)) __builtin_trap();
  } catch (const storage::StorageError&) {
  }
  return 0;
}
