// The process-wide start and end of MPI (itercl/mpi.hpp): MPI_COMM_WORLD's rank, size and host in the
// process's communicator (core::world()).
#include "itercl/mpi.hpp"

#include <cstdlib>
#include <iostream>
#include <string>

#include "core/comm.hpp"

#ifdef ITERCL_HAVE_MPI
#include <mpi.h>
#endif

namespace itercl {

namespace {
[[maybe_unused]] bool launched_by_mpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(name)) return true;
  return false;
}
}  // namespace

void mpi_start(int* argc, char*** argv) {
#ifdef ITERCL_HAVE_MPI
  core::Comm& comm = core::world();
  if (comm.mpi_ || !launched_by_mpirun()) return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    std::cerr << "failed: MPI_Init_thread\n";
    std::exit(1);
  }
  comm.mpi_ = true;
  comm.mpi_handle_ = MPI_Comm_c2f(MPI_COMM_WORLD);
  MPI_Comm_rank(MPI_COMM_WORLD, &comm.rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &comm.size_);
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, comm.rank_, MPI_INFO_NULL, &host);
  MPI_Comm_rank(host, &comm.local_rank_);
  MPI_Comm_size(host, &comm.local_size_);
  MPI_Comm_free(&host);
  core::share_host_cores(comm.local_size_);  // before PoCL's platform starts (after this)
#else
  (void)argc, (void)argv;
#endif
}

void mpi_finish() {
#ifdef ITERCL_HAVE_MPI
  core::Comm& comm = core::world();
  if (!comm.mpi_) return;
  MPI_Finalize();
  comm.mpi_ = false;
#endif
}

Ranks::Ranks(int mpi_fortran_handle) : comm_(core::duplicate_communicator(mpi_fortran_handle)) {}
int Ranks::rank() const { return comm_->rank(); }
int Ranks::size() const { return comm_->size(); }

int mpi_rank() { return core::world().rank(); }
int mpi_size() { return core::world().size(); }
void mpi_abort(int exit_code) { core::world().abort(exit_code); }

std::string mpi_library_version() {
#ifdef ITERCL_HAVE_MPI
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int length = 0;
  MPI_Get_library_version(text, &length);
  std::string version(text, static_cast<std::size_t>(length));
  const auto end = version.find_first_of("\r\n");
  return end == std::string::npos ? version : version.substr(0, end);
#else
  return "none";
#endif
}

}  // namespace itercl
