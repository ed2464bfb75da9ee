// Running over several MPI ranks (`mpirun -np P itercl run ...`): the process-wide start and end of
// MPI, for a program's main(). Without MPI in the build, or in a process that mpirun did not start, MPI
// is never initialised and every call here answers as one process of one rank.
#pragma once

#include <string>

namespace itercl {

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

}  // namespace itercl
