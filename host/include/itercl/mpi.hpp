// Running over several MPI ranks (`mpirun -np P itercl run ...`): the process-wide start and end of
// MPI, for a program's main(). Without MPI in the build, or in a process that mpirun did not start, MPI
// is never initialised and every call here answers as one process of one rank.
#pragma once

#include <memory>
#include <string>

namespace itercl {

namespace core {
class Comm;
}

// Initialises MPI (MPI_Init_thread, FUNNELED: only the calling thread talks to MPI) when this build has
// MPI and the launcher's environment (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_RANK) says mpirun started
// this process; else nothing. Call once, first thing in main(). With several ranks on one host and
// PoCL, it also shares the host's cores among them (POCL_CPU_MAX_CU_COUNT, unless already set).
void mpi_start(int* argc, char*** argv);
// MPI_Finalize, if mpi_start initialised MPI. Call before main() returns normally.
void mpi_finish();
int mpi_rank();  // 0 without MPI
int mpi_size();  // 1 without MPI
// Ends every rank now with `exit_code` (MPI_Abort over MPI_COMM_WORLD); std::exit without MPI.
[[noreturn]] void mpi_abort(int exit_code);
// The first line of MPI_Get_library_version (e.g. "Open MPI v4.1.4, ..."), or "none" without MPI.
std::string mpi_library_version();

// The ranks of an MPI communicator of the caller's, for the fits over ranks (KMeans::fit(Ranks, ...),
// Smacof::fit_vectors, PageRank::fit, PairHistogram::run): a program, or mpi4py, that initialised MPI
// itself passes its communicator's Fortran handle (MPI_Comm_c2f(comm); mpi4py: comm.py2f()). The
// library talks over a duplicate of it (MPI_Comm_dup), so that its messages never meet the caller's;
// constructing one is a collective over the communicator's ranks. Copies share the duplicate, freed with
// the last. Throws RuntimeError in a build without MPI, or before MPI_Init.
class Ranks {
 public:
  explicit Ranks(int mpi_fortran_handle);
  int rank() const;
  int size() const;
  core::Comm& comm() const { return *comm_; }  // the library's own (internal)

 private:
  std::shared_ptr<core::Comm> comm_;
};

}  // namespace itercl
