// itercl: the command line over the library. Exit codes: 0 success, 2 bad input, 1 runtime failure.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "itercl/itercl.hpp"
#include "itercl/version.hpp"
#include "progress_line.hpp"

namespace itercl::cli {

std::string bytes(std::uint64_t b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  const int largest = static_cast<int>(std::size(units)) - 1;
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < largest) v /= 1024, ++u;
  char out[32];
  std::snprintf(out, sizeof out, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return out;
}

// Whether standard output was closed when the program started (see hold_standard_descriptors).
bool g_stdout_closed = false;

// A closed descriptor 0, 1 or 2 gets /dev/null: otherwise the first file the run opens (a lock, an
// output's temporary) would take its number, and the results meant for standard output would be written
// into it. Standard output closed at the start is remembered, so that writing to it still fails.
void hold_standard_descriptors() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    if (fd == 1) g_stdout_closed = true;
    const int null = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
    if (null >= 0 && null != fd) ::close(null);  // the lowest free number is fd: anything else is not ours
  }
}

// Writes `text` to standard output and flushes it; throws RuntimeError when it cannot be written
// (/dev/full, a closed descriptor), so that the exit status says so instead of 0.
void write_stdout(const std::string& text, const char* what) {
  if (g_stdout_closed)
    throw itercl::RuntimeError(std::string("standard output: cannot write ") + what + ": it was closed");
  errno = 0;
  std::cout << text << std::flush;
  if (!std::cout) {
    const int error = errno;
    std::cout.clear();
    throw itercl::RuntimeError(std::string("standard output: cannot write ") + what + ": " +
                               (error ? std::strerror(error) : "write failed"));
  }
}

int list_devices(bool as_json) {
  const auto devices = itercl::list_devices();
  if (as_json) {
    write_stdout(nlohmann::json(devices).dump(2) + "\n", "the device list");
    return devices.empty() ? 1 : 0;
  }
  if (devices.empty()) {
    std::cerr << itercl::no_device_message() << "\n";
    return 1;
  }
  std::printf("%-5s %-5s %-40s %-28s %4s %10s %9s %6s %4s  %s\n", "P:D", "type", "name", "platform", "CUs", "global",
              "local", "max WG", "fp64", "version");
  for (const auto& d : devices)
    std::printf("%-5s %-5s %-40.40s %-28.28s %4u %10s %9s %6zu %4s  %s\n", d.id().c_str(), d.type.c_str(),
                d.name.c_str(), d.platform.c_str(), d.compute_units, bytes(d.global_memory).c_str(),
                bytes(d.local_memory).c_str(), d.max_work_group_size, d.fp64 ? "yes" : "no", d.version.c_str());
  if (g_stdout_closed || std::fflush(stdout) != 0 || std::ferror(stdout))
    throw itercl::RuntimeError(std::string("standard output: cannot write the device list: ") +
                               (g_stdout_closed ? "it was closed" : std::strerror(errno)));
  return 0;
}

// The table of candidates, the gain, and the entry stored when it is worth it (or --force).
int report_tuning(const std::string& kernel, const itercl::Device& device, const itercl::TuneOptions& options,
                  const itercl::TuneReport& report, const std::string& out, bool dry_run, bool force, double budget_s,
                  ProgressLine& line) {
  line.finish();
  std::printf("tune %s on %s (%s), %s, problem %s\n", kernel.c_str(), device.info().name.c_str(),
              device.info().type.c_str(), std::string(itercl::precision_name(options.precision)).c_str(),
              report.problem.dump().c_str());
  std::vector<std::size_t> order(report.candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto &ca = report.candidates[a], &cb = report.candidates[b];
    return ca.rejected.empty() != cb.rejected.empty() ? ca.rejected.empty() : ca.median_ms < cb.median_ms;
  });
  for (std::size_t i : order) {
    const auto& c = report.candidates[i];
    const char* mark = i == report.best ? "best " : i == report.baseline ? "before" : "";
    if (c.rejected.empty())
      std::printf("  %-6s %9.4f ms (%.4f-%.4f)  %s\n", mark, c.median_ms, c.min_ms, c.max_ms,
                  c.parameters.dump().c_str());
    else
      std::printf("  %-6s %9s  %s: %s\n", mark, "rejected", c.parameters.dump().c_str(), c.rejected.c_str());
  }
  if (report.ended_early == "budget")
    std::printf("budget spent after %zu of %zu candidates (--budget %g s): the best measured so far counts\n",
                report.candidates.size(), report.candidates.size() + report.not_tried, budget_s);
  else if (report.ended_early == "stopped")
    std::printf("stopped (Ctrl-C) after %zu of %zu candidates: the best measured so far counts\n",
                report.candidates.size(), report.candidates.size() + report.not_tried);
  const auto& before = report.candidates[report.baseline];
  const auto& best = report.candidates[report.best];
  std::printf("tuning gained: %.4f ms before, %.4f ms tuned (%.2fx)\n", before.median_ms, best.median_ms,
              before.median_ms / best.median_ms);
  if (!report.worth_storing && !force) {
    if (report.best == report.baseline)
      std::printf("the current choice is the fastest measured: nothing stored\n");
    else
      std::printf(
          "within the noise: the best's slowest run (%.4f ms) is not faster than the current choice's "
          "fastest (%.4f ms); nothing stored (--force stores it anyway)\n",
          best.max_ms, before.min_ms);
    return 0;
  }
  if (!dry_run) {
    // --out, else --tuning / $ITERCL_TUNING_DIR, else the user's folder: where runs will look.
    std::filesystem::path folder = out;
    if (folder.empty()) folder = itercl::tuning_dir_override().value_or(std::filesystem::path());
    if (folder.empty()) folder = itercl::user_tuning_dir().value_or(std::filesystem::path());
    if (folder.empty())
      throw itercl::InputError(
          "tune: no tuning folder to store in (no $HOME, or $ITERCL_NO_USER_TUNING set): "
          "give --out DIR or --dry-run");
    // --out names a whole database (the repository's tuning/, say); the others are overlays.
    itercl::store_tuned_parameters(folder, kernel, device.info(), report.entry, /*start_from_builtin=*/!out.empty());
    std::printf("stored as devices/%s in %s\n", device.info().name.c_str(),
                (folder / (kernel + ".json")).string().c_str());
  }
  return 0;
}

// Ctrl-C during `itercl tune` ends the sweep at once (see tune_kernel); the handler steps aside, so that a
// second one ends the command the usual way.
std::atomic<bool> tune_interrupted{false};
struct sigaction before_tune {};
void interrupt_tuning(int) {
  tune_interrupted = true;
  ::sigaction(SIGINT, &before_tune, nullptr);
}

// What the sweep's thread hands back: the report after each candidate, then the result or its error.
struct Sweep {
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<itercl::TuneReport> last, result;
  std::exception_ptr error;
  bool finished = false;
};

int tune_kernel(const std::string& kernel, const std::string& device_spec, itercl::TuneOptions options,
                const std::string& out, bool dry_run, bool force, const itercl::Stopwatch& command,
                ProgressLine& line) {
  const itercl::Device device = itercl::Device::select(itercl::device_spec(device_spec, ""));
  // The budget is the command's: what starting up and opening the device took comes off it.
  const double budget_s = options.budget_s;
  if (budget_s > 0) options.budget_s = std::max(budget_s - command.seconds(), 1e-9);
  // The sweep runs on a thread of its own, so that the budget and Ctrl-C bound the command even in the
  // middle of a candidate (a kernel build on a cold cache can take minutes): at the deadline, or at
  // Ctrl-C, the last report (the candidates measured) is concluded, reported and stored here, and the
  // process ends by std::_Exit, the candidate in progress abandoned inside the driver, never unwound.
  auto sweep = std::make_shared<Sweep>();
  auto abandoned = std::make_shared<std::atomic<bool>>(false);
  if (options.progress)
    options.progress = [draw = options.progress, abandoned](const itercl::ProgressEvent& e) {
      if (!*abandoned) draw(e);
    };
  options.measured = [sweep](const itercl::TuneReport& r) {
    std::lock_guard lock(sweep->mutex);
    sweep->last = r;
  };
  struct sigaction handler {};
  handler.sa_handler = interrupt_tuning;
  handler.sa_flags = SA_RESTART;  // the sweep's calls in progress go on; this thread polls the flag
  sigemptyset(&handler.sa_mask);
  ::sigaction(SIGINT, &handler, &before_tune);
  std::thread([sweep, kernel, device, options] {
    std::optional<itercl::TuneReport> result;
    std::exception_ptr error;
    try {
      result = itercl::tune(kernel, device, options);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard lock(sweep->mutex);
    sweep->result = std::move(result);
    sweep->error = error;
    sweep->finished = true;
    sweep->changed.notify_all();
  }).detach();
  itercl::TuneReport report;
  {
    std::unique_lock lock(sweep->mutex);
    auto over = [&] { return budget_s > 0 && command.seconds() >= budget_s; };
    while (!sweep->finished && !tune_interrupted && !over())
      sweep->changed.wait_for(lock, std::chrono::milliseconds(100));
    if (sweep->finished) {
      ::sigaction(SIGINT, &before_tune, nullptr);
      if (sweep->error) std::rethrow_exception(sweep->error);
      report = std::move(*sweep->result);
    } else {
      *abandoned = true;
      // The sweep may be inside a kernel build, which catches stderr for the compiler's messages: what
      // is written below must reach the terminal, not that build's log (lost at _Exit).
      itercl::release_stderr();
      line.finish();
      if (!sweep->last) {  // nothing measured: said, and the process ends here all the same
        std::cerr << "failed: tune: " << (tune_interrupted ? "stopped (Ctrl-C)" : "--budget spent")
                  << " before the first candidate, the current choice, was measured: nothing to store (on a "
                     "cold kernel cache its build alone can take minutes: give a larger --budget, or 0 for none)\n";
        std::fflush(nullptr);
        std::_Exit(1);
      }
      report = std::move(*sweep->last);
      report.ended_early = tune_interrupted ? "stopped" : "budget";
      report.not_tried = report.declared - report.candidates.size();
      itercl::conclude_tuning(report, device.info(), options.precision);
    }
  }
  const int code = report_tuning(kernel, device, options, report, out, dry_run, force, budget_s, line);
  if (*abandoned) {  // the sweep's thread is still in its candidate: end here, with what was measured
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// A hidden alias of an option that was renamed: still accepted, with a warning on stderr (stdout may
// carry results).
void deprecated_alias(CLI::Option* alias, const std::string& name, const std::string& replacement) {
  alias->group("");  // hidden from the help
  alias->check(CLI::Validator(
      [name, replacement](std::string&) {
        std::cerr << "warning: " << name << " is deprecated; use " << replacement << "\n";
        return std::string();
      },
      "DEPRECATED"));
}

// The message, then the exit code; over several ranks the message names its rank and every rank ends
// at once (MPI_Abort: mpirun exits with this code), so that no rank waits for one that failed.
int fail(const char* kind, const char* message, int code) {
  if (itercl::mpi_size() > 1) {
    std::cerr << "rank " << itercl::mpi_rank() << ": " << kind << message << std::endl;
    itercl::mpi_abort(code);
  }
  std::cerr << kind << message << "\n";
  return code;
}

}  // namespace itercl::cli

int main(int argc, char** argv) {
  const itercl::Stopwatch command;  // tune's --budget bounds the whole command
  itercl::cli::hold_standard_descriptors();
  CLI::App app{"itercl: OpenCL kernels for iterative statistics (K-Means, ...) on any device"};
  app.set_version_flag("--version", std::string(ITERCL_VERSION) + "\nMPI: " + itercl::mpi_library_version());
  app.require_subcommand(1);
  app.fallthrough();  // the options below work before or after the subcommand
  bool no_cache = false, quiet = false, verbose = false;
  app.add_flag("--no-cache", no_cache, "Compile every kernel afresh instead of loading it from the disk cache");
  app.add_flag("--quiet", quiet, "No progress line and no summary (errors still go to stderr)");
  app.add_flag("--verbose", verbose, "Also print the OpenCL compiler's messages of every kernel build on stderr");
  std::string progress_name = "auto";
  app.add_option("--progress", progress_name,
                 "Progress on stderr: auto (a self-overwriting line when stderr is a terminal, else none), bar, "
                 "plain (a line a second, for logs), none")
      ->check(CLI::IsMember({"auto", "bar", "plain", "none"}));
  std::string tuning_dir;
  app.add_option("--tuning", tuning_dir,
                 "Tuning folder over the built-in database and the user's (~/.config/itercl/tuning): "
                 "runs read it, tune writes it (default: $ITERCL_TUNING_DIR)");

  // Subcommands' help lists the global options too: CLI11 shows only a subcommand's own.
  const std::string global_options =
      "Global options (before or after the subcommand):\n"
      "  --progress auto|bar|plain|none  Progress on stderr (default auto: a line when it is a terminal)\n"
      "  --quiet                         No progress and no summary\n"
      "  --verbose                       The OpenCL compiler's messages of every build (else only of a failed one)\n"
      "  --no-cache                      Compile every kernel afresh\n"
      "  --tuning DIR                    Tuning folder over the built-in and the user's (~/.config/itercl/tuning)\n"
      "  --version                       Print the version and exit\n";

  bool as_json = false;
  auto* devices = app.add_subcommand("devices", "List OpenCL platforms and devices");
  devices->add_flag("--json", as_json, "Print the list as JSON");

  std::string config;
  itercl::RunOverrides overrides;
  std::string out;
  auto* run = app.add_subcommand("run", "Run one experiment from a JSON config and write its results");
  run->add_option("config", config, "Experiment config (JSON)")->required();
  run->add_option("--device", overrides.device,
                  "auto, gpu, cpu, P:D or a name substring (default: $ITERCL_DEVICE, else the config's)");
  run->add_option("--precision", overrides.precision, "float or double (default: the config's)");
  run->add_option("--out", out,
                  "Results file (default: the config's output); - for standard output. The config's relative "
                  "extra files (labels, ...) go beside it");
  std::string kernel_choices;  // from the library's tables, so that a new variant is listed the day it is added
  for (const itercl::KernelChoice& c : itercl::experiment_kernel_choices())
    kernel_choices += "  " + c.algorithm + " " + c.field + ": auto, " + itercl::cli::joined(c.values) + "\n";
  run->footer("Algorithms (the config's \"algorithm\"): " + itercl::cli::joined(itercl::experiment_algorithms()) +
              "\nKernels (the config's choice, else auto: the device's tuning):\n" + kernel_choices + global_options);

  std::string suite;
  itercl::BenchOptions bench_options;
  std::string bench_out;
  bool no_peers = false;
  auto* bench = app.add_subcommand("bench", "Run a benchmark suite on one or several devices: medians, spreads, peers");
  bench->add_option("suite", suite, "Suite (JSON), e.g. benchmarks/kmeans/suite.json")->required();
  bench->add_option("--device", bench_options.devices, "Device spec(s), replacing the suite's \"devices\"");
  bench->add_option("--groups", bench_options.groups, "Run only these groups of the suite")->delimiter(',');
  bench->add_option("--warmup", bench_options.warmup, "Warm-up runs per case (default: the suite's)");
  bench->add_option("--repeat", bench_options.repeat, "Timed runs per case (default: the suite's)");
  std::vector<std::string> limits;
  bench->add_option("--limit", limits, "PATH=MAX: skip cases whose config holds more than MAX at PATH");
  bench->add_option("--out", bench_out, "Results JSON (CSV beside it; default: the suite's \"output\")");
  bench->add_flag("--no-peers", no_peers, "Skip the suite's peer programs");
  bench->footer(global_options);

  std::string tune_kernel_name, tune_device, tune_precision = "float", tune_problem = "{}", tune_out;
  itercl::TuneOptions tune_options;
  bool dry_run = false;
  auto* tune = app.add_subcommand("tune", "Sweep a kernel's tuning space on a device and store the fastest correct");
  tune->add_option("kernel", tune_kernel_name,
                   "Kernel family to tune: " + itercl::cli::joined(itercl::tunable_kernels()))
      ->required();
  tune->add_option("--device", tune_device,
                   "auto, gpu, cpu, P:D or a name substring (default: $ITERCL_DEVICE or auto)");
  tune->add_option("--precision", tune_precision, "float or double");
  tune->add_option("--problem", tune_problem, "The problem's size as JSON, e.g. '{\"n_samples\": 4194304}'");
  tune->add_option("--repeat", tune_options.repeats, "Timed runs per candidate (median; default 10)");
  itercl::cli::deprecated_alias(tune->add_option("--repeats", tune_options.repeats, "Old name of --repeat"),
                                "--repeats", "--repeat");
  tune->add_option("--out", tune_out,
                   "Folder of the tuning database to update (<out>/<kernel>.json; default: --tuning, else "
                   "$ITERCL_TUNING_DIR, else the user's folder ~/.config/itercl/tuning)");
  tune_options.budget_s = 90;  // the whole command within 2 minutes on a 2-core machine (docs/bench-tune-report.md)
  tune->add_option("--budget", tune_options.budget_s,
                   "Seconds the whole command may take, kernel builds included (default 90; 0: no limit): "
                   "candidates stop starting when the slowest so far no longer fits, and the best measured counts");
  tune->add_flag("--dry-run", dry_run, "Report only; store nothing");
  bool force = false;
  tune->add_flag("--force", force,
                 "Store the fastest even when its gain is within the timings' spread (kept only beyond it otherwise)");
  tune->footer("Kernels: " + itercl::cli::joined(itercl::tunable_kernels()) + "\n" + global_options);
  devices->footer(global_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  itercl::cli::ProgressMode progress_mode = itercl::cli::ProgressMode::none;
  itercl::cli::parse_progress_mode(progress_name, quiet, progress_mode);
  itercl::cli::ProgressLine line(progress_mode);
  // The library reads the folder from the environment: one place for every subcommand and library call.
  if (!tuning_dir.empty()) setenv("ITERCL_TUNING_DIR", tuning_dir.c_str(), 1);
  itercl::remove_temporaries_on_signals();  // an interrupted run leaves no .tmp- files
  itercl::mpi_start(&argc, &argv);          // under mpirun only; a plain run never initialises MPI
  struct MpiEnd {
    ~MpiEnd() { itercl::mpi_finish(); }
  } mpi_end;
  try {
    itercl::set_program_disk_cache(!no_cache);
    // The compiler's messages are shown on request only (a failed build's are in its error).
    if (verbose)
      itercl::set_build_log_handler([&line](const std::string& file, const std::string& options,
                                            const std::string& log) {
        line.finish();
        std::cerr << "build log of " << file << " (" << options << "):\n" << log << (log.back() == '\n' ? "" : "\n");
      });
    if (*run || *bench || *tune) {
      // The OpenCL platform started now, so that the handlers it brings (PoCL's LLVM) go behind ours.
      try {
        itercl::list_devices();
      } catch (const std::exception&) {
        // No device: the command says so in its own words.
      }
      itercl::remove_temporaries_on_signals();
    }
    if (*devices) return itercl::cli::list_devices(as_json);
    if (*bench) {
      bench_options.output = bench_out;
      for (const std::string& limit : limits) {
        const auto eq = limit.find('=');
        char* end = nullptr;
        const double max = eq == std::string::npos ? 0 : std::strtod(limit.c_str() + eq + 1, &end);
        if (eq == std::string::npos || eq == 0 || !end || *end != '\0')
          throw itercl::InputError("--limit " + limit + ": expected PATH=NUMBER, e.g. data.n_samples=16384");
        bench_options.limits.emplace_back(limit.substr(0, eq), max);
      }
      bench_options.peers = !no_peers;
      if (!quiet)
        bench_options.log = [&line](const std::string& text) {
          line.finish();
          std::cerr << text << std::endl;
        };
      if (line.active()) bench_options.progress = std::ref(line);
      const auto outcome = itercl::run_bench_file(suite, bench_options);
      line.finish();
      const std::size_t peers = outcome.results["peers"].size();
      const std::string peer_summary = peers == 0 ? ""
                                                  : "; " + std::to_string(peers) + " peers, " +
                                                        std::to_string(outcome.peers_missing.size()) + " missing, " +
                                                        std::to_string(outcome.peers_crashed.size()) + " crashed";
      if (!quiet)
        std::cout << "bench: " << outcome.results["cases"].size() << " cases, " << outcome.failed << " failed"
                  << peer_summary << "; " << outcome.json_path.string() << ", " << outcome.csv_path.string() << "\n";
      // Said on stderr even with --quiet; a missing or crashed peer is an error (exit 1).
      if (!outcome.peers_missing.empty())
        std::cerr << "failed: peers not installed (their results are absent; see \"peers\" in "
                  << outcome.json_path.string() << "): " << itercl::cli::joined(outcome.peers_missing) << "\n";
      if (!outcome.peers_crashed.empty())
        std::cerr << "failed: peers crashed (see \"peers\" in " << outcome.json_path.string()
                  << "): " << itercl::cli::joined(outcome.peers_crashed) << "\n";
      // A missing peer fails the command too: a report without its peer compares nothing.
      return outcome.failed || !outcome.peers_crashed.empty() || !outcome.peers_missing.empty() ? 1 : 0;
    }
    if (*tune) {
      tune_options.precision = itercl::parse_precision(tune_precision);
      tune_options.problem = itercl::parse_config_json(tune_problem, "--problem");
      if (line.active()) tune_options.progress = std::ref(line);
      return itercl::cli::tune_kernel(tune_kernel_name, tune_device, tune_options, tune_out, dry_run, force, command,
                                      line);
    }
    overrides.output = out;
    const bool first_rank = itercl::mpi_rank() == 0;  // over several ranks, rank 0 reports
    if (first_rank && line.active()) overrides.progress = std::ref(line);
    // --out -: standard output carries the results JSON and nothing else, written before the run's other
    // outputs are committed (none when it fails); the summary goes to stderr.
    if (out == "-")
      overrides.deliver = [&line](const nlohmann::json& results) {
        line.finish();
        itercl::cli::write_stdout(results.dump(2) + "\n", "the results");
      };
    const auto outcome = itercl::run_experiment_file(config, overrides);
    line.finish();
    if (first_rank && !quiet) (out == "-" ? std::cerr : std::cout) << outcome.summary;
    return 0;
  } catch (const itercl::InputError& e) {
    line.finish();
    return itercl::cli::fail("error: ", e.what(), 2);
  } catch (const std::exception& e) {
    line.finish();
    return itercl::cli::fail("failed: ", e.what(), 1);
  }
}
