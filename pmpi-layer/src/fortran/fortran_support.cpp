#include "pmpi-layer/src/fortran/fortran_support.hpp"

#include "pmpi-layer/src/objects/operations.hpp"
#include "pmpi-layer/src/objects/object_hooks.hpp"
#include "pmpi-layer/src/shim/api.hpp"
#include "pmpi-layer/src/shim/call_scope.hpp"

#include <algorithm>
#include <cstring>

#if defined(OPEN_MPI)
// Open MPI's Fortran sentinels: common blocks the app's MPI_BOTTOM etc. refer to. If the
// executable holds a copy of the common block, the dynamic linker binds these to that copy,
// which is exactly the address the app passes.
extern "C" {
extern int mpi_fortran_bottom_;
extern int mpi_fortran_in_place_;
extern int mpi_fortran_status_ignore_;
extern int mpi_fortran_statuses_ignore_;
}
#endif

namespace yadokari::shim::fortran {

// A Fortran status is MPI_STATUS_SIZE integers laid out like the C struct (Open MPI: 6).
constexpr std::ptrdiff_t kFortranStatusSize = sizeof(MPI_Status) / sizeof(MPI_Fint);

#if defined(OPEN_MPI)
const void* buffer(const void* f) {
  if (f == &mpi_fortran_bottom_) return MPI_BOTTOM;
  if (f == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  return f;
}
void* buffer(void* f) { return const_cast<void*>(buffer(static_cast<const void*>(f))); }
bool is_status_ignore(const MPI_Fint* f) { return static_cast<const void*>(f) == &mpi_fortran_status_ignore_; }
bool is_statuses_ignore(const MPI_Fint* f) { return static_cast<const void*>(f) == &mpi_fortran_statuses_ignore_; }
#else
const void* buffer(const void* f) { return f; }
void* buffer(void* f) { return f; }
bool is_status_ignore(const MPI_Fint*) { return false; }
bool is_statuses_ignore(const MPI_Fint*) { return false; }
#endif

Status::Status(MPI_Fint* f, bool read_in) : f_(f), ignore_(is_status_ignore(f)) {
  if (read_in && !ignore_) PMPI_Status_f2c(f_, &c_);
}

void Status::copy_out() {
  if (!ignore_) PMPI_Status_c2f(&c_, f_);
}

Statuses::Statuses(MPI_Fint* f, int n) : f_(f), n_(n < 0 ? 0 : n), ignore_(is_statuses_ignore(f)) {
  if (!ignore_) c_ = new MPI_Status[static_cast<std::size_t>(n_) + 1];
}

Statuses::~Statuses() { delete[] c_; }

void Statuses::copy_out() {
  if (ignore_) return;
  for (int i = 0; i < n_; ++i) PMPI_Status_c2f(&c_[i], f_ + static_cast<std::ptrdiff_t>(i) * kFortranStatusSize);
}

std::string trimmed(const char* f, std::size_t len) {
  std::size_t end = len;
  while (end > 0 && f[end - 1] == ' ') --end;
  std::size_t begin = 0;
  while (begin < end && f[begin] == ' ') ++begin;
  return std::string(f + begin, end - begin);
}

void copy_out(char* f, std::size_t len, const char* c) {
  const std::size_t n = std::min(len, std::strlen(c));
  std::memcpy(f, c, n);
  std::memset(f + n, ' ', len - n);
}

}  // namespace yadokari::shim::fortran

#if defined(OPEN_MPI)
using namespace yadokari::shim;

// Fortran bindings that are not mechanical (fortran_custom in mpi_functions.def). Each is also
// exported under the names `use mpi_f08` calls (ompi_*_f, pmpi_*_; generate_wrappers.py,
// fortran_alias_names), as the generated ones are.
#define YK_F08_ALIASES(name, params)                                                      \
  extern "C" YK_API void ompi_##name##_f params __attribute__((alias("mpi_" #name "_"))); \
  extern "C" YK_API void pmpi_##name##_ params __attribute__((alias("mpi_" #name "_")));

extern "C" YK_API void mpi_init_(MPI_Fint* ierr) {
  const int rc = MPI_Init(nullptr, nullptr);
  if (ierr) *ierr = rc;
}

YK_F08_ALIASES(init, (MPI_Fint*))

extern "C" YK_API void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  const int rc = MPI_Init_thread(nullptr, nullptr, *required, provided);
  if (ierr) *ierr = rc;
}

YK_F08_ALIASES(init_thread, (MPI_Fint*, MPI_Fint*, MPI_Fint*))

extern "C" YK_API void mpi_pcontrol_(MPI_Fint* level) { MPI_Pcontrol(*level); }
YK_F08_ALIASES(pcontrol, (MPI_Fint*))

extern "C" YK_API void mpi_op_create_(void* function, MPI_Fint* commute, MPI_Fint* op, MPI_Fint* ierr) {
  CallScope scope(Fn::MPI_Op_create);
  MPI_Op c = MPI_OP_NULL;
  const int rc = create_op(function, *commute != 0, true, &c);
  if (rc == MPI_SUCCESS) *op = fortran::to_f<OpK>(c);
  if (ierr) *ierr = rc;
}
YK_F08_ALIASES(op_create, (void*, MPI_Fint*, MPI_Fint*, MPI_Fint*))

// Attribute queries from Fortran: the library's predefined attributes (MPI_TAG_UB, MPI_HOST,
// MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE) are C ints the
// C binding returns a pointer to; Fortran wants the value. Keyvals of the shim cannot come from
// Fortran (MPI_COMM_CREATE_KEYVAL is not supported there).
namespace {
int fortran_attr_get(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag) {
  void* p = nullptr;
  int found = 0;
  const int rc = MPI_Comm_get_attr(fortran::to_c<CommK>(*comm), *keyval, &p, &found);
  if (rc == MPI_SUCCESS) {
    *flag = found ? 1 : 0;
    if (found) *value = *static_cast<int*>(p);
  }
  return rc;
}
}  // namespace

extern "C" YK_API void mpi_comm_get_attr_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                                          MPI_Fint* ierr) {
  const int rc = fortran_attr_get(comm, keyval, value, flag);
  if (ierr) *ierr = rc;
}
YK_F08_ALIASES(comm_get_attr, (MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Fint*, MPI_Fint*))

extern "C" YK_API void mpi_attr_get_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag,
                                     MPI_Fint* ierr) {
  MPI_Aint v = 0;
  const int rc = fortran_attr_get(comm, keyval, &v, flag);
  if (rc == MPI_SUCCESS && *flag) *value = static_cast<MPI_Fint>(v);
  if (ierr) *ierr = rc;
}
YK_F08_ALIASES(attr_get, (MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*))
#undef YK_F08_ALIASES

// C code of a mixed-language app converting handles (Open MPI has real functions for these;
// MPICH defines them as casts, which are right for its integer handles).
#define YK_F2C_C2F(Name, Kind, H)                                                     \
  extern "C" YK_API H MPI_##Name##_f2c(MPI_Fint f) { return fortran::to_c<Kind>(f); } \
  extern "C" YK_API MPI_Fint MPI_##Name##_c2f(H c) { return fortran::to_f<Kind>(c); }
YK_F2C_C2F(Comm, CommK, MPI_Comm)
YK_F2C_C2F(Type, TypeK, MPI_Datatype)
YK_F2C_C2F(Group, GroupK, MPI_Group)
YK_F2C_C2F(Op, OpK, MPI_Op)
YK_F2C_C2F(Request, ReqK, MPI_Request)
YK_F2C_C2F(Info, InfoK, MPI_Info)
YK_F2C_C2F(Errhandler, ErrhK, MPI_Errhandler)
YK_F2C_C2F(Message, MsgK, MPI_Message)
#undef YK_F2C_C2F
#endif
