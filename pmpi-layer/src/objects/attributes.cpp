// Attribute caching on communicators and datatypes is done by the shim, not the library: the
// values then live in the shim's records (so they survive a restart with the objects), and the
// copy/delete callbacks are called with the app's virtual handles. Predefined attributes
// (MPI_TAG_UB, MPI_WTIME_IS_GLOBAL, ...) still come from the library.
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"
#include "pmpi-layer/src/objects/world.hpp"

#include <map>
#include <vector>

namespace yadokari::shim {
namespace {

constexpr int kKeyvalBase = 0x3a000000;
std::vector<KeyvalRecord> g_keyvals;
std::vector<bool> g_keyval_live;

bool is_shim_keyval(int keyval) {
  const int i = keyval - kKeyvalBase;
  return i >= 0 && static_cast<std::size_t>(i) < g_keyvals.size() && g_keyval_live[static_cast<std::size_t>(i)];
}

KeyvalRecord& keyval(int k) { return g_keyvals[static_cast<std::size_t>(k - kKeyvalBase)]; }

int new_keyval(KeyvalRecord rec) {
  g_keyvals.push_back(rec);
  g_keyval_live.push_back(true);
  return kKeyvalBase + static_cast<int>(g_keyvals.size() - 1);
}

// Predefined attributes hang off the real MPI_COMM_WORLD, not the virtual world's communicator.
MPI_Comm real_for_predefined(MPI_Comm comm) { return (comm == MPI_COMM_WORLD) ? MPI_COMM_WORLD : to_real<CommK>(comm); }

std::map<int, void*>* comm_attrs(MPI_Comm comm) {
  auto* rec = record_of<CommK>(comm);
  return rec ? &rec->attributes : nullptr;
}

std::map<int, void*>* type_attrs(MPI_Datatype type) {
  auto* rec = record_of<TypeK>(type);
  return rec ? &rec->attributes : nullptr;
}

// Communicators and datatypes cache attributes the same way; only the callback types differ.
template <class H, class DeleteFn>
int delete_one(H object, std::map<int, void*>& attrs, int k, DeleteFn KeyvalRecord::*delete_fn) {
  auto it = attrs.find(k);
  if (it == attrs.end()) return MPI_ERR_KEYVAL;
  int rc = MPI_SUCCESS;
  if (auto fn = keyval(k).*delete_fn) {
    yadokari::memory::ApplicationCallback application;
    rc = fn(object, k, it->second, keyval(k).extra_state);
  }
  attrs.erase(it);
  return rc;
}

template <class H, class CopyFn>
void copy_all(H from, std::map<int, void*>* src, std::map<int, void*>* dst, CopyFn KeyvalRecord::*copy_fn) {
  if (!src || !dst) return;
  for (auto& [k, value] : *src) {
    auto fn = keyval(k).*copy_fn;
    if (!fn) continue;  // MPI_COMM_NULL_COPY_FN is a null pointer in MPICH
    void* out = nullptr;
    int flag = 0;
    int rc = MPI_SUCCESS;
    {
      yadokari::memory::ApplicationCallback application;
      rc = fn(from, k, keyval(k).extra_state, value, &out, &flag);
    }
    if (rc == MPI_SUCCESS && flag) (*dst)[k] = out;
  }
}

int delete_one_comm_attr(MPI_Comm comm, std::map<int, void*>& attrs, int k) {
  return delete_one(comm, attrs, k, &KeyvalRecord::delete_fn);
}

int delete_one_type_attr(MPI_Datatype type, std::map<int, void*>& attrs, int k) {
  return delete_one(type, attrs, k, &KeyvalRecord::type_delete_fn);
}

}  // namespace

std::vector<KeyvalRecord>& keyval_records() { return g_keyvals; }
std::vector<bool>& keyval_live_flags() { return g_keyval_live; }

void copy_comm_attributes(MPI_Comm from, MPI_Comm to) {
  copy_all(from, comm_attrs(from), comm_attrs(to), &KeyvalRecord::copy_fn);
}

void delete_comm_attributes(MPI_Comm comm) {
  auto* attrs = comm_attrs(comm);
  if (!attrs || !codec::is_virtual(comm)) return;
  while (!attrs->empty()) delete_one_comm_attr(comm, *attrs, attrs->begin()->first);
}

void delete_self_attributes() {
  // MPI 3.1 §8.7.1: at MPI_Finalize, before anything else, MPI_COMM_SELF's attributes are deleted
  // (their delete callbacks called) in the reverse order of setting; libraries clean up this way.
  // The shim caches them, so the library would never call them. Reverse keyval order stands for
  // the order of setting, which is not kept.
  auto* attrs = comm_attrs(MPI_COMM_SELF);
  if (!attrs) return;
  while (!attrs->empty()) delete_one_comm_attr(MPI_COMM_SELF, *attrs, attrs->rbegin()->first);
}

void copy_type_attributes(MPI_Datatype from, MPI_Datatype to) {
  copy_all(from, type_attrs(from), type_attrs(to), &KeyvalRecord::type_copy_fn);
}

void delete_type_attributes(MPI_Datatype type) {
  auto* attrs = type_attrs(type);
  if (!attrs) return;
  while (!attrs->empty()) delete_one_type_attr(type, *attrs, attrs->begin()->first);
}

}  // namespace yadokari::shim

using namespace yadokari::shim;

extern "C" YK_API int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn,
                                             MPI_Comm_delete_attr_function* delete_fn, int* comm_keyval,
                                             void* extra_state) {
  CallScope scope(Fn::MPI_Comm_create_keyval);
  KeyvalRecord rec;
  rec.copy_fn = copy_fn;
  rec.delete_fn = delete_fn;
  rec.extra_state = extra_state;
  *comm_keyval = new_keyval(rec);
  return MPI_SUCCESS;
}

extern "C" YK_API int MPI_Type_create_keyval(MPI_Type_copy_attr_function* copy_fn,
                                             MPI_Type_delete_attr_function* delete_fn, int* type_keyval,
                                             void* extra_state) {
  CallScope scope(Fn::MPI_Type_create_keyval);
  KeyvalRecord rec;
  rec.type_copy_fn = copy_fn;
  rec.type_delete_fn = delete_fn;
  rec.extra_state = extra_state;
  *type_keyval = new_keyval(rec);
  return MPI_SUCCESS;
}

namespace {

int free_keyval(int* k) {
  if (!is_shim_keyval(*k)) return MPI_ERR_KEYVAL;
  // Attributes already set keep working until deleted (MPI 3.1 §6.7.2); only the id retires.
  g_keyval_live[static_cast<std::size_t>(*k - kKeyvalBase)] = false;
  *k = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int comm_set(MPI_Comm comm, int k, void* value) {
  if (!is_shim_keyval(k)) return PMPI_Comm_set_attr(real_for_predefined(comm), k, value);
  auto* attrs = comm_attrs(comm);
  if (!attrs) return PMPI_Comm_set_attr(to_real<CommK>(comm), k, value);  // let the library report it
  if (attrs->count(k)) delete_one_comm_attr(comm, *attrs, k);
  (*attrs)[k] = value;
  return MPI_SUCCESS;
}

int comm_get(MPI_Comm comm, int k, void* value, int* flag) {
  if (!is_shim_keyval(k)) return PMPI_Comm_get_attr(real_for_predefined(comm), k, value, flag);
  auto* attrs = comm_attrs(comm);
  if (!attrs) return PMPI_Comm_get_attr(to_real<CommK>(comm), k, value, flag);
  auto it = attrs->find(k);
  *flag = it != attrs->end();
  if (*flag) *static_cast<void**>(value) = it->second;
  return MPI_SUCCESS;
}

int comm_delete(MPI_Comm comm, int k) {
  if (!is_shim_keyval(k)) return PMPI_Comm_delete_attr(real_for_predefined(comm), k);
  auto* attrs = comm_attrs(comm);
  return attrs ? delete_one_comm_attr(comm, *attrs, k) : MPI_ERR_COMM;
}

}  // namespace

extern "C" YK_API int MPI_Comm_free_keyval(int* comm_keyval) {
  CallScope scope(Fn::MPI_Comm_free_keyval);
  return is_shim_keyval(*comm_keyval) ? free_keyval(comm_keyval) : PMPI_Comm_free_keyval(comm_keyval);
}

extern "C" YK_API int MPI_Type_free_keyval(int* type_keyval) {
  CallScope scope(Fn::MPI_Type_free_keyval);
  return is_shim_keyval(*type_keyval) ? free_keyval(type_keyval) : PMPI_Type_free_keyval(type_keyval);
}

extern "C" YK_API int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  CallScope scope(Fn::MPI_Comm_set_attr);
  return comm_set(comm, comm_keyval, attribute_val);
}

extern "C" YK_API int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag) {
  CallScope scope(Fn::MPI_Comm_get_attr);
  return comm_get(comm, comm_keyval, attribute_val, flag);
}

extern "C" YK_API int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  CallScope scope(Fn::MPI_Comm_delete_attr);
  return comm_delete(comm, comm_keyval);
}

extern "C" YK_API int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  CallScope scope(Fn::MPI_Attr_get);
  return comm_get(comm, keyval, attribute_val, flag);
}

extern "C" YK_API int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  CallScope scope(Fn::MPI_Attr_put);
  return comm_set(comm, keyval, attribute_val);
}

extern "C" YK_API int MPI_Attr_delete(MPI_Comm comm, int keyval) {
  CallScope scope(Fn::MPI_Attr_delete);
  return comm_delete(comm, keyval);
}

extern "C" YK_API int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  CallScope scope(Fn::MPI_Type_set_attr);
  auto* attrs = type_attrs(datatype);
  if (!is_shim_keyval(type_keyval) || !attrs)
    return PMPI_Type_set_attr(to_real<TypeK>(datatype), type_keyval, attribute_val);
  if (attrs->count(type_keyval)) delete_one_type_attr(datatype, *attrs, type_keyval);
  (*attrs)[type_keyval] = attribute_val;
  return MPI_SUCCESS;
}

extern "C" YK_API int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  CallScope scope(Fn::MPI_Type_get_attr);
  auto* attrs = type_attrs(datatype);
  if (!is_shim_keyval(type_keyval) || !attrs)
    return PMPI_Type_get_attr(to_real<TypeK>(datatype), type_keyval, attribute_val, flag);
  auto it = attrs->find(type_keyval);
  *flag = it != attrs->end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}

extern "C" YK_API int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  CallScope scope(Fn::MPI_Type_delete_attr);
  auto* attrs = type_attrs(datatype);
  if (!is_shim_keyval(type_keyval) || !attrs) return PMPI_Type_delete_attr(to_real<TypeK>(datatype), type_keyval);
  return delete_one_type_attr(datatype, *attrs, type_keyval);
}
