// Info objects: the shim mirrors their key/value pairs so an info can be re-created.
#include "pmpi-layer/src/objects/object_hooks.hpp"

namespace yadokari::shim {

InfoRecord info_entries(MPI_Info info) {
  auto* rec = record_of<InfoK>(info);
  return rec ? *rec : InfoRecord{};
}

void mirror_info_set(MPI_Info info, const char* key, const char* value) {
  if (auto* rec = record_of<InfoK>(info)) rec->entries[key] = value;
}

void mirror_info_delete(MPI_Info info, const char* key) {
  if (auto* rec = record_of<InfoK>(info)) rec->entries.erase(key);
}

}  // namespace yadokari::shim
