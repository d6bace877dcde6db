#include "pmpi-layer/src/cut/replay.hpp"

#include "pmpi-layer/src/core/replay_frees.hpp"
#include "pmpi-layer/src/objects/creation_log.hpp"
#include "pmpi-layer/src/shim/diagnostics.hpp"
#include "pmpi-layer/src/objects/trampolines.hpp"
#include "pmpi-layer/src/cut/cut_state.hpp"
#include "pmpi-layer/src/objects/message_size.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/objects/world.hpp"

#include <unordered_map>
#include <vector>

namespace yadokari::shim {
namespace {

// What a virtual handle (as the app spells it) stands for while the log is replayed. A virtual
// handle freed and handed out again later simply gets the newer object: the log is in order.
class NewObjects {
 public:
  template <class K>
  typename K::handle real(std::uint64_t v) const {
    auto it = map_.find(v);
    if (it != map_.end()) return codec::from_u64<typename K::handle>(it->second);
    return to_real<K>(codec::from_u64<typename K::handle>(v));  // predefined (or MPI_COMM_WORLD)
  }
  void set(std::uint64_t v, std::uint64_t real) { map_[v] = real; }
  bool has(std::uint64_t v) const { return map_.count(v) != 0; }
  std::uint64_t get(std::uint64_t v) const { return map_.at(v); }

 private:
  std::unordered_map<std::uint64_t, std::uint64_t> map_;
};

std::vector<int> ints_of(const Recipe& r, std::size_t from, std::size_t n) {
  std::vector<int> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<int>(r.ints[from + i]);
  return out;
}

std::vector<MPI_Aint> aints_of(const Recipe& r, std::size_t from, std::size_t n) {
  std::vector<MPI_Aint> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<MPI_Aint>(r.ints[from + i]);
  return out;
}

MPI_Comm recreate_comm(const Recipe& r, const NewObjects& objs) {
  const MPI_Comm parent = r.parents.empty() ? MPI_COMM_NULL : objs.real<CommK>(r.parents[0]);
  MPI_Comm out = MPI_COMM_NULL;
  const auto& v = r.ints;
  switch (r.op) {
    case RecipeOp::comm_dup:
      PMPI_Comm_dup(parent, &out);
      break;
    case RecipeOp::comm_split:
      PMPI_Comm_split(parent, static_cast<int>(v[0]), static_cast<int>(v[1]), &out);
      break;
    case RecipeOp::comm_split_type:  // images of builds that recorded the call as it was made
      PMPI_Comm_split_type(parent, static_cast<int>(v[0]), static_cast<int>(v[1]), objs.real<InfoK>(r.parents[1]),
                           &out);
      break;
    case RecipeOp::comm_create:
      PMPI_Comm_create(parent, objs.real<GroupK>(r.parents[1]), &out);
      break;
    case RecipeOp::comm_create_group:
      PMPI_Comm_create_group(parent, objs.real<GroupK>(r.parents[1]), static_cast<int>(v[0]), &out);
      break;
    case RecipeOp::cart_create: {
      const auto n = static_cast<std::size_t>(v[0]);
      auto dims = ints_of(r, 1, n), periods = ints_of(r, 1 + n, n);
      PMPI_Cart_create(parent, static_cast<int>(n), dims.data(), periods.data(), static_cast<int>(v[1 + 2 * n]), &out);
      break;
    }
    case RecipeOp::cart_sub: {
      auto remain = ints_of(r, 1, static_cast<std::size_t>(v[0]));
      PMPI_Cart_sub(parent, remain.data(), &out);
      break;
    }
    case RecipeOp::graph_create: {
      const auto nodes = static_cast<std::size_t>(v[0]);
      auto index = ints_of(r, 1, nodes);
      const auto nedges = static_cast<std::size_t>(v[1 + nodes]);
      auto edges = ints_of(r, 2 + nodes, nedges);
      PMPI_Graph_create(parent, static_cast<int>(nodes), index.data(), edges.data(),
                        static_cast<int>(v[2 + nodes + nedges]), &out);
      break;
    }
    case RecipeOp::dist_graph_create_adjacent: {
      const auto in = static_cast<std::size_t>(v[0]), outd = static_cast<std::size_t>(v[1]);
      const DistGraphWeights kinds = dist_graph_weights(v[2]);
      auto sources = ints_of(r, 4, in), dests = ints_of(r, 4 + in, outd);
      std::size_t next = 4 + in + outd;
      std::vector<int> sw, dw;
      if (kinds.sources_kind == kWeightsGiven) {
        sw = ints_of(r, next, in);
        next += in;
      }
      if (kinds.destinations_kind == kWeightsGiven) dw = ints_of(r, next, outd);
      // The weights argument as the app gave it (an empty array stays an array, not "unweighted").
      const auto weights = [](std::int64_t kind, std::vector<int>& given) -> const int* {
        if (kind == kWeightsUnweighted) return MPI_UNWEIGHTED;
        if (kind == kWeightsEmpty) return MPI_WEIGHTS_EMPTY;
        given.push_back(0);  // a valid address also for zero edges
        return given.data();
      };
      const int* source_weights = weights(kinds.sources_kind, sw);
      const int* destination_weights = weights(kinds.destinations_kind, dw);
      PMPI_Dist_graph_create_adjacent(parent, static_cast<int>(in), sources.data(), source_weights,
                                      static_cast<int>(outd), dests.data(), destination_weights, MPI_INFO_NULL,
                                      static_cast<int>(v[3]), &out);
      break;
    }
    case RecipeOp::intercomm_create:
      PMPI_Intercomm_create(parent, static_cast<int>(v[0]), objs.real<CommK>(r.parents[1]), static_cast<int>(v[1]),
                            static_cast<int>(v[2]), &out);
      break;
    case RecipeOp::intercomm_merge:
      PMPI_Intercomm_merge(parent, static_cast<int>(v[0]), &out);
      break;
    default:
      print_line("yadokari: cannot re-create a communicator made by %s", recipe_op_name(r.op));
  }
  return out;
}

MPI_Group recreate_group(const Recipe& r, const NewObjects& objs) {
  MPI_Group out = MPI_GROUP_NULL;
  const auto& v = r.ints;
  auto g = [&](std::size_t i) { return objs.real<GroupK>(r.parents[i]); };
  switch (r.op) {
    case RecipeOp::comm_group:
      PMPI_Comm_group(objs.real<CommK>(r.parents[0]), &out);
      break;
    case RecipeOp::comm_remote_group:
      PMPI_Comm_remote_group(objs.real<CommK>(r.parents[0]), &out);
      break;
    case RecipeOp::group_incl:
    case RecipeOp::group_excl: {
      auto ranks = ints_of(r, 1, static_cast<std::size_t>(v[0]));
      const int n = static_cast<int>(v[0]);
      if (r.op == RecipeOp::group_incl)
        PMPI_Group_incl(g(0), n, ranks.data(), &out);
      else
        PMPI_Group_excl(g(0), n, ranks.data(), &out);
      break;
    }
    case RecipeOp::group_range_incl:
    case RecipeOp::group_range_excl: {
      auto flat = ints_of(r, 1, static_cast<std::size_t>(v[0]));
      const int n = static_cast<int>(v[0] / 3);
      auto* ranges = reinterpret_cast<int(*)[3]>(flat.data());
      if (r.op == RecipeOp::group_range_incl)
        PMPI_Group_range_incl(g(0), n, ranges, &out);
      else
        PMPI_Group_range_excl(g(0), n, ranges, &out);
      break;
    }
    case RecipeOp::group_union:
      PMPI_Group_union(g(0), g(1), &out);
      break;
    case RecipeOp::group_intersection:
      PMPI_Group_intersection(g(0), g(1), &out);
      break;
    case RecipeOp::group_difference:
      PMPI_Group_difference(g(0), g(1), &out);
      break;
    default:
      print_line("yadokari: cannot re-create a group made by %s", recipe_op_name(r.op));
  }
  return out;
}

MPI_Datatype recreate_type(const Recipe& r, const NewObjects& objs) {
  MPI_Datatype out = MPI_DATATYPE_NULL;
  const auto& v = r.ints;
  auto old = [&]() { return objs.real<TypeK>(r.parents[0]); };
  const auto n = v.empty() ? 0 : static_cast<std::size_t>(v[0]);
  switch (r.op) {
    case RecipeOp::type_contiguous:
      PMPI_Type_contiguous(static_cast<int>(v[0]), old(), &out);
      break;
    case RecipeOp::type_vector:
      PMPI_Type_vector(static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]), old(), &out);
      break;
    case RecipeOp::type_hvector:
      PMPI_Type_create_hvector(static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<MPI_Aint>(v[2]), old(),
                               &out);
      break;
    case RecipeOp::type_indexed: {
      auto bl = ints_of(r, 1, n), d = ints_of(r, 1 + n, n);
      PMPI_Type_indexed(static_cast<int>(n), bl.data(), d.data(), old(), &out);
      break;
    }
    case RecipeOp::type_hindexed: {
      auto bl = ints_of(r, 1, n);
      auto d = aints_of(r, 1 + n, n);
      PMPI_Type_create_hindexed(static_cast<int>(n), bl.data(), d.data(), old(), &out);
      break;
    }
    case RecipeOp::type_indexed_block: {
      auto d = ints_of(r, 2, n);
      PMPI_Type_create_indexed_block(static_cast<int>(n), static_cast<int>(v[1]), d.data(), old(), &out);
      break;
    }
    case RecipeOp::type_hindexed_block: {
      auto d = aints_of(r, 2, n);
      PMPI_Type_create_hindexed_block(static_cast<int>(n), static_cast<int>(v[1]), d.data(), old(), &out);
      break;
    }
    case RecipeOp::type_struct: {
      auto bl = ints_of(r, 1, n);
      auto d = aints_of(r, 1 + n, n);
      std::vector<MPI_Datatype> types(n);
      for (std::size_t i = 0; i < n; ++i) types[i] = objs.real<TypeK>(r.parents[i]);
      PMPI_Type_create_struct(static_cast<int>(n), bl.data(), d.data(), types.data(), &out);
      break;
    }
    case RecipeOp::type_subarray: {
      const auto nd = static_cast<std::size_t>(v[0]);
      auto sizes = ints_of(r, 2, nd), sub = ints_of(r, 2 + nd, nd), starts = ints_of(r, 2 + 2 * nd, nd);
      PMPI_Type_create_subarray(static_cast<int>(nd), sizes.data(), sub.data(), starts.data(), static_cast<int>(v[1]),
                                old(), &out);
      break;
    }
    case RecipeOp::type_darray: {
      const auto nd = static_cast<std::size_t>(v[2]);
      auto gs = ints_of(r, 4, nd), di = ints_of(r, 4 + nd, nd), da = ints_of(r, 4 + 2 * nd, nd),
           ps = ints_of(r, 4 + 3 * nd, nd);
      PMPI_Type_create_darray(static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(nd), gs.data(),
                              di.data(), da.data(), ps.data(), static_cast<int>(v[3]), old(), &out);
      break;
    }
    case RecipeOp::type_resized:
      PMPI_Type_create_resized(old(), static_cast<MPI_Aint>(v[0]), static_cast<MPI_Aint>(v[1]), &out);
      break;
    case RecipeOp::type_dup:
      PMPI_Type_dup(old(), &out);
      break;
    default:
      print_line("yadokari: cannot re-create a datatype made by %s", recipe_op_name(r.op));
  }
  return out;
}

// The record of a user op / error handler the app still holds (a freed one has given up its
// trampoline slot and is not needed by anything made later).
template <class K>
const typename K::record* live_record(std::uint64_t v) {
  const std::uint32_t index = codec::index_of(codec::from_u64<typename K::handle>(v));
  return registry<K>().table.contains(index) ? &registry<K>().table.at(index).record : nullptr;
}

// Frees an object the replay made again that nothing holds any more (core/replay_frees.hpp).
void free_remade(std::uint32_t kind, std::uint64_t real) {
  if (kind == CommK::code) {
    MPI_Comm c = codec::from_u64<MPI_Comm>(real);
    if (c != MPI_COMM_NULL) PMPI_Comm_free(&c);
  } else if (kind == GroupK::code) {
    MPI_Group g = codec::from_u64<MPI_Group>(real);
    if (g != MPI_GROUP_NULL && g != MPI_GROUP_EMPTY) PMPI_Group_free(&g);
  } else if (kind == TypeK::code) {
    MPI_Datatype t = codec::from_u64<MPI_Datatype>(real);
    if (t != MPI_DATATYPE_NULL) PMPI_Type_free(&t);
  } else if (kind == OpK::code) {
    MPI_Op o = codec::from_u64<MPI_Op>(real);
    if (o != MPI_OP_NULL) PMPI_Op_free(&o);
  } else if (kind == ErrhK::code) {
    MPI_Errhandler e = codec::from_u64<MPI_Errhandler>(real);
    if (e != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&e);
  } else if (kind == InfoK::code) {
    MPI_Info i = codec::from_u64<MPI_Info>(real);
    if (i != MPI_INFO_NULL) PMPI_Info_free(&i);
  }
}

// Applies the new library objects to the live virtual handles of one kind.
template <class K>
void adopt_new_objects(const NewObjects& objs) {
  auto& reg = registry<K>();
  reg.table.for_each([&](std::uint32_t index, typename K::entry& e) {
    const std::uint64_t v = codec::to_u64(codec::encode<typename K::handle>(K::code, index));
    if (!objs.has(v)) return;
    if constexpr (K::reverse_map) reg.by_real.erase(codec::to_u64(e.real));
    e.real = codec::from_u64<typename K::handle>(objs.get(v));
    if constexpr (K::reverse_map) reg.by_real.emplace(codec::to_u64(e.real), index);
  });
}

}  // namespace

std::uint64_t replay_creation_log() {
  compact_creation_log();  // (a no-op after a cut's save; not when the replay is asked for mid-run)
  NewObjects objs;
  const std::vector<std::vector<std::size_t>> frees = replay_frees(logged_makings(), entry_held_now);
  std::vector<std::uint64_t> remade(g_creation_log.size());  // each entry's new real
  for (std::size_t at = 0; at < g_creation_log.size(); ++at) {
    const CreationRecord& c = g_creation_log[at];
    const Recipe& r = c.recipe;
    std::uint64_t real = 0;
    if (c.kind == CommK::code) {
      real = codec::to_u64(recreate_comm(r, objs));
    } else if (c.kind == GroupK::code) {
      real = codec::to_u64(recreate_group(r, objs));
    } else if (c.kind == TypeK::code) {
      real = codec::to_u64(recreate_type(r, objs));
    } else if (c.kind == OpK::code) {
      MPI_Op op = MPI_OP_NULL;
      const auto* rec = live_record<OpK>(c.result);
      if (rec && rec->trampoline >= 0)
        PMPI_Op_create(reinterpret_cast<MPI_User_function*>(op_trampoline(rec->trampoline)), rec->commute, &op);
      real = codec::to_u64(op);
    } else if (c.kind == ErrhK::code) {
      MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
      const auto* rec = live_record<ErrhK>(c.result);
      if (rec && rec->trampoline >= 0)
        PMPI_Comm_create_errhandler(
            reinterpret_cast<MPI_Comm_errhandler_function*>(errhandler_trampoline(rec->trampoline)), &eh);
      real = codec::to_u64(eh);
    } else if (c.kind == InfoK::code) {
      MPI_Info info = MPI_INFO_NULL;
      PMPI_Info_create(&info);
      real = codec::to_u64(info);
    }
    if (c.result != 0) objs.set(c.result, real);
    remade[at] = real;
    for (const std::size_t dead : frees[at]) free_remade(g_creation_log[dead].kind, remade[dead]);
  }
  adopt_new_objects<CommK>(objs);
  adopt_new_objects<GroupK>(objs);
  adopt_new_objects<TypeK>(objs);
  adopt_new_objects<OpK>(objs);
  adopt_new_objects<ErrhK>(objs);
  adopt_new_objects<InfoK>(objs);
  // State set on objects after they were made.
  registry<TypeK>().table.for_each([](std::uint32_t, TypeK::entry& e) {
    if (e.record.committed) PMPI_Type_commit(&e.real);
  });
  registry<InfoK>().table.for_each([](std::uint32_t, InfoK::entry& e) {
    for (const auto& [key, value] : e.record.entries) PMPI_Info_set(e.real, key.c_str(), value.c_str());
  });
  registry<CommK>().table.for_each([](std::uint32_t, CommK::entry& e) {
    if (e.record.errhandler != MPI_ERRHANDLER_NULL) {
      PMPI_Comm_set_errhandler(e.real, to_real<ErrhK>(e.record.errhandler));
      if (e.record.is_world) world_errhandler_on_library_world(to_real<ErrhK>(e.record.errhandler));
    }
    if (!e.record.name.empty()) PMPI_Comm_set_name(e.real, e.record.name.c_str());
  });
  registry<TypeK>().table.for_each([](std::uint32_t, TypeK::entry& e) {
    if (!e.record.name.empty()) PMPI_Type_set_name(e.real, e.record.name.c_str());
  });
  for (const auto& [type, name] : g_predefined_type_names)
    PMPI_Type_set_name(codec::from_u64<MPI_Datatype>(type), name.c_str());
  forget_type_sizes();
  g_objects_replayed += g_creation_log.size();
  return g_creation_log.size();
}

}  // namespace yadokari::shim

// For tests and, later, the restart path: re-create every object of the app on the library.
extern "C" YK_API std::uint64_t yadokari_replay_objects(void) { return yadokari::shim::replay_creation_log(); }
