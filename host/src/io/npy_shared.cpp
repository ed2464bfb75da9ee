#include "io/npy_shared.hpp"

#include <string>

namespace itercl::io {

SharedNpy::SharedNpy(core::Comm& comm, const std::filesystem::path& path, Precision dtype,
                     const std::vector<std::size_t>& shape)
    : comm_(comm) {
  if (comm.rank() == 0) created_.emplace(path, dtype, shape);
  if (!comm.several()) return;
  const std::string name = created_ ? created_->staging_path().string() : std::string();
  std::vector<char> staged(name.begin(), name.end());
  comm.broadcast(staged);
  if (!created_) joined_.emplace(NpyStream::Join{std::string(staged.begin(), staged.end())}, path, dtype, shape);
}

double SharedNpy::commit() {
  if (joined_) joined_->commit();
  double waited = 0;
  if (comm_.several()) {  // rank 0 publishes the file once every rank has written and closed its part
    const double before = comm_.seconds();
    comm_.barrier();
    waited = comm_.seconds() - before;
  }
  if (created_) created_->commit();
  return waited;
}

}  // namespace itercl::io
