// Errors itercl raises. Two kinds, because the CLI answers them differently:
// InputError is the user's to fix (a config field, a data file, a parameter value; exit code 2),
// RuntimeError is the machine's (OpenCL, memory, a kernel build; exit code 1).
#pragma once

#include <stdexcept>
#include <string>

namespace itercl {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parameter that fails validation. `field` is the parameter's name as the user wrote it
// ("n_clusters"), so a config reader can prefix its section ("params.n_clusters: ...").
class ParamError : public InputError {
 public:
  ParamError(std::string field, std::string detail)
      : InputError(field + ": " + detail), field_(std::move(field)), detail_(std::move(detail)) {}
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string field_, detail_;
};

class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An OpenCL program that failed to compile; the message carries the options and the build log.
class BuildError : public RuntimeError {
 public:
  BuildError(const std::string& file, const std::string& options, const std::string& log)
      : RuntimeError("building " + file + " failed with options '" + options + "':\n" + log) {}
};

// The symbolic name of an OpenCL error code ("CL_OUT_OF_RESOURCES").
std::string cl_error_name(int code);

// Rethrows whatever is in flight as one of the classes above: cl::Error becomes a RuntimeError that
// names the failing call and its code, std::bad_alloc a RuntimeError about host memory.
[[noreturn]] void rethrow_as_itercl_error();

}  // namespace itercl
