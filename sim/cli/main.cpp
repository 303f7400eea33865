// emx: the command-line front end. SystemC's library provides main() and calls sc_main.
#include <fmt/format.h>
#include <systemc>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>

#include "isa/isa.h"
#include "options.h"
#include "output_file.h"
#include "paths.h"
#include "sim/trace/chrome_trace.h"
#include "sim/trace/explore_trace.h"
#include "sim/trace/tee_trace.h"
#include "sim/trace/text_trace.h"
#include "profile_report.h"
#include "run_stats.h"
#include "trace_options.h"
#include "sim/machine/config_file.h"
#include "sim/machine/machine.h"

namespace {

using namespace emx;

using cli::kExitUsage;

machine::MachineConfig load_config(const std::string& file, const std::vector<std::string>& sets,
                                   std::optional<unsigned> pes,
                                   std::optional<uint64_t> max_cycles = std::nullopt) {
  nlohmann::json j = machine::read_config_json(cli::resolve_config(file));
  for (const std::string& s : sets) machine::apply_override(j, s);
  if (pes) j["pes"] = *pes;
  if (max_cycles) j["sim"]["max_cycles"] = *max_cycles;
  return machine::parse_config(j);
}

// The machine in one line, for the explorer page's title.
std::string explore_config_text(const cli::RunOptions& opt, const machine::MachineConfig& cfg) {
  std::string s = fmt::format("{}, {} PEs at {} MHz", cfg.name, cfg.pes, cfg.clock_mhz);
  for (const std::string& set : opt.sets) s += ", --set " + set;
  return s;
}

// The process's CPU time (user + system), for speed figures that a loaded host's wall
// clock would understate.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::string limits_text(uint64_t cycle_limit, const cli::RunOptions& opt) {
  std::string s = cycle_limit ? fmt::format("{} cycles (sim.max_cycles)", cycle_limit)
                              : std::string(opt.max_host_seconds > 0 ? "no cycle limit" : "");
  if (opt.max_host_seconds > 0) s += ", " + opt.max_time_text + " host time";
  return s.empty() ? "none" : s;
}

// A host time with three significant digits or more: a short run takes microseconds.
std::string host_time_text(double s) {
  if (s >= 1) return fmt::format("{:.3f} s", s);
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.1f} us", s * 1e6);
}

void print_summary(const std::string& program, const machine::MachineConfig& cfg,
                   const machine::Outcome& o, uint64_t instructions, double host_s,
                   double host_cpu_s, const std::string& limits) {
  const double us = static_cast<double>(o.cycles) / cfg.clock_mhz;
  std::cerr << fmt::format(
      "--- emx: {} on {} ({} PE{} at {} MHz)\n"
      "simulated time  {:.3f} us ({} cycles)\n"
      "instructions    {}\n"
      "host time       {} ({} CPU)\n"
      "simulated MIPS  {:.1f}\n"
      "limits          {}\n",
      program, cfg.name, cfg.pes, cfg.pes == 1 ? "" : "s", cfg.clock_mhz, us, o.cycles,
      instructions, host_time_text(host_s), host_time_text(host_cpu_s), host_s > 0 ? static_cast<double>(instructions) / host_s / 1e6 : 0.0,
      limits);
  if (o.kind == machine::Outcome::Kind::exited) std::cerr << "exit code       " << o.exit_code << "\n";
}

// The --profile file's text: JSON for a name ending in .json, else the readable report.
std::string profile_text(const cli::ProfileInput& p, const std::string& file) {
  std::ostringstream out;
  const bool json = file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0;
  if (json) cli::write_profile_json(p, out);
  else cli::write_profile_text(p, out);
  return out.str();
}

int run_status(const machine::Outcome& o) {
  switch (o.kind) {
    case machine::Outcome::Kind::exited: return cli::program_status(o.exit_code);
    case machine::Outcome::Kind::fault:
    case machine::Outcome::Kind::error: return cli::kExitFault;
    case machine::Outcome::Kind::deadlock: return cli::kExitDeadlock;
    case machine::Outcome::Kind::time_limit: return cli::kExitTimeLimit;
    case machine::Outcome::Kind::host_time_limit: return cli::kExitHostTimeLimit;
  }
  return cli::kExitFault;
}

// A run's outputs are all written: the process ends here, without taking the machine
// and SystemC's kernel apart (destroying a 64-PE machine took about a tenth of a small
// run's CPU; the kernel frees the process's memory at once). A sanitizer build returns,
// so that the destructors still run under its checks.
int leave(int status) {
#if !defined(__SANITIZE_ADDRESS__)
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(status);
#endif
  return status;
}

int cmd_run(const std::vector<std::string>& words) {
  if (!words.empty() && (words[0] == "--help" || words[0] == "-h")) {
    std::cout << cli::kRunHelp;
    return 0;
  }
  const cli::RunOptions opt = cli::parse_run_options(words);
  for (const std::string& w : opt.warnings) std::cerr << "emx: " << w << "\n";
  const machine::MachineConfig cfg = load_config(opt.config, opt.sets, opt.pes, opt.max_cycles);
  // Output files are checked now, not after a long run.
  cli::check_writable("--stats", opt.stats_file);
  cli::check_writable("--trace", opt.trace_file);
  cli::check_writable("--explore", opt.explore_file);
  cli::check_writable("--profile", opt.profile_file);
  cli::check_writable("--stats-text", opt.stats_text_file);
  const std::string path = cli::resolve_program(opt.program);
  const loader::ElfImage program = loader::ElfImage::load(path, cfg.pe.memory_bytes);
  std::vector<std::string> args{opt.program};
  args.insert(args.end(), opt.args.begin(), opt.args.end());

  machine::Machine m(cfg, program, args, std::cout);
  if (opt.trace_file.empty() && !opt.trace_text && opt.explore_file.empty() &&
      (!opt.trace_window.empty() || !opt.trace_pes.empty()))
    throw cli::UsageError("--trace-window and --trace-pes choose what --trace, --trace-text or --explore record");
  // Owned by the machine; their files are checked after the run.
  const trace::ChromeTrace* chrome = nullptr;
  const trace::ExploreTrace* explore = nullptr;
  if (!opt.trace_file.empty() || opt.trace_text || !opt.explore_file.empty()) {
    trace::Filter filter = cli::parse_trace_filter(opt.trace_window, opt.trace_pes, cfg.pes, cfg.clock_mhz);
    std::vector<std::unique_ptr<trace::Tracer>> tracers;
    if (!opt.trace_file.empty()) {
      auto t = std::make_unique<trace::ChromeTrace>(opt.trace_file, cfg.pes, cfg.clock_mhz, filter);
      chrome = t.get();
      tracers.push_back(std::move(t));
    }
    if (opt.trace_text)
      tracers.push_back(std::make_unique<trace::TextTrace>(std::cerr, cfg.pes, cfg.clock_mhz, filter));
    if (!opt.explore_file.empty()) {
      auto t = std::make_unique<trace::ExploreTrace>(
          opt.explore_file, cfg.pes, cfg.clock_mhz, filter,
          trace::ExploreTrace::Run{opt.program, path, explore_config_text(opt, cfg), opt.args},
          program.symbols());
      explore = t.get();
      tracers.push_back(std::move(t));
    }
    if (tracers.size() == 1) m.set_tracer(std::move(tracers[0]));
    else m.set_tracer(std::make_unique<trace::TeeTrace>(std::move(tracers)));
  }
  if (opt.profile_file.empty() && !opt.profile_pes.empty())
    throw cli::UsageError("--profile-pes chooses the PEs that --profile sums over");
  if (opt.profile_file.empty() && opt.profile_top)
    throw cli::UsageError("--profile-top chooses how many instructions --profile lists");
  cli::ProfileInput profile{{}, &program.symbols()};
  if (opt.profile_top) profile.top_instructions = *opt.profile_top ? *opt.profile_top : UINT64_MAX;
  if (!opt.profile_file.empty()) {
    const std::vector<bool> chosen =
        opt.profile_pes.empty() ? std::vector<bool>(cfg.pes, true)
                                : cli::parse_pe_list("--profile-pes", opt.profile_pes, cfg.pes);
    for (unsigned k = 0; k < cfg.pes; ++k)
      if (chosen[k]) {
        m.pe(k).hart().enable_profile();
        profile.harts.push_back(&m.pe(k).hart());
      }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_seconds();
  machine::Outcome o = m.run(opt.max_host_seconds);
  const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double host_cpu_s = process_cpu_seconds() - cpu0;
  // What the program left open goes first: emx's outputs need descriptors of their own.
  m.host().close_files();
  std::cout.flush();
  if (o.kind == machine::Outcome::Kind::host_time_limit)
    o.report = fmt::format("emx: host time limit: --max-time {} reached before the program "
                           "exited (at {:.3f} us simulated)\n", opt.max_time_text,
                           static_cast<double>(o.cycles) / cfg.clock_mhz);
  if (!o.report.empty()) std::cerr << o.report;
  for (const std::string& note : m.host().file_notes()) std::cerr << "emx: file access " << note << "\n";
  if (!opt.quiet)
    print_summary(opt.program, cfg, o, m.instructions(), host_s, host_cpu_s, limits_text(m.cycle_limit(), opt));

  // Every output is written whole and checked; one that is lost is an error of its own.
  bool lost = false;
  auto output = [&](const char* option, const std::string& file, const auto& render) {
    if (file.empty()) return;
    try {
      cli::write_output(option, file, render());
    } catch (const cli::OutputError& e) {
      std::cerr << "emx: " << e.what() << "\n";
      lost = true;
    }
  };
  output("--profile", opt.profile_file, [&] { return profile_text(profile, opt.profile_file); });
  nlohmann::json s;  // lives to leave(), which ends the process without taking it apart
  if (!opt.stats_file.empty() || !opt.stats_text_file.empty()) {
    const cli::RunFacts facts{path,     machine::outcome_name(o.kind), o.exit_code, o.cycles,
                              cfg.clock_mhz, m.instructions(), host_s, host_cpu_s};
    s = cli::run_stats_json(facts, m.host().results(), machine::to_json(cfg), m.stats().dump());
    output("--stats", opt.stats_file, [&] { return s.dump(1) + "\n"; });
    output("--stats-text", opt.stats_text_file, [&] { return cli::stats_text(s); });
  }
  for (const std::string* e : {chrome ? &chrome->write_error() : nullptr,
                                explore ? &explore->write_error() : nullptr})
    if (e && !e->empty()) {
      std::cerr << "emx: " << *e << "\n";
      lost = true;
    }
  if (!std::cout) {
    std::cerr << "emx: the program's console output could not be written to stdout\n";
    lost = true;
  }
  return leave(lost ? cli::kExitOutput : run_status(o));
}

int cmd_config(const std::vector<std::string>& w) {
  if (!w.empty() && w[0] == "--doc") {
    std::cout << machine::config_markdown();
    return 0;
  }
  if (w.empty() || w[0] != "--show") throw cli::UsageError("usage: emx config --doc | --show [...]");
  cli::RunOptions o;
  for (std::size_t k = 1; k < w.size(); ++k) {
    if (k + 1 >= w.size()) throw cli::UsageError(w[k] + " needs a value");
    if (w[k] == "--config") o.config = w[++k];
    else if (w[k] == "--set") o.sets.push_back(w[++k]);
    else if (w[k] == "--pes") o.pes = cli::parse_pes(w[++k]);
    else throw cli::UsageError("unknown option " + w[k]);
  }
  std::cout << machine::to_json(load_config(o.config, o.sets, o.pes)).dump(2) << "\n";
  return 0;
}

int cmd_stats(const std::vector<std::string>& w) {
  if (w.size() == 1 && w[0] == "--doc") {
    std::cout << cli::stats_markdown();
    return 0;
  }
  throw cli::UsageError("usage: emx stats --doc");
}

int cmd_isa(const std::vector<std::string>& w) {
  if (!w.empty() && w[0] == "--markdown") {
    std::cout << isa::isa_markdown();
    return 0;
  }
  if (w.size() >= 2 && w[0] == "--disasm") {
    if (w.size() > 3) throw cli::UsageError("usage: emx isa --disasm WORD [PC]");
    const uint32_t word = cli::parse_hex32("--disasm WORD", w[1]);
    const uint32_t pc = w.size() > 2 ? cli::parse_hex32("--disasm PC", w[2]) : 0;
    std::cout << isa::disassemble(word, pc) << "\n";
    return 0;
  }
  throw cli::UsageError("usage: emx isa --markdown | --disasm WORD [PC]");
}

int cmd_serve(const std::vector<std::string>& w);

int dispatch(const std::vector<std::string>& w) {
  if (w.empty() || w[0] == "--help" || w[0] == "-h" || w[0] == "help") {
    std::cout << cli::kMainHelp;
    return w.empty() ? kExitUsage : 0;
  }
  const std::vector<std::string> rest(w.begin() + 1, w.end());
  if (w[0] == "run") return cmd_run(rest);
  if (w[0] == "config") return cmd_config(rest);
  if (w[0] == "isa") return cmd_isa(rest);
  if (w[0] == "stats") return cmd_stats(rest);
  if (w[0] == "serve") return cmd_serve(rest);
  if (w[0] == "demo") return cmd_run({"demo"});
  throw cli::UsageError("unknown command '" + w[0] + "' (see emx --help)");
}

// One command's words to its exit status, errors reported on stderr.
int run_words(const std::vector<std::string>& words) {
  try {
    return dispatch(words);
  } catch (const cli::UsageError& e) {
    std::cerr << "emx: " << e.what() << "\n";
  } catch (const config::ConfigError& e) {
    std::cerr << "emx: " << e.what() << "\n";
  } catch (const loader::ElfError& e) {
    std::cerr << "emx: bad program: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "emx: " << e.what() << "\n";
  }
  return kExitUsage;
}

// emx serve: runs the emx commands that arrive on the socket at fd 0, each in a forked
// copy of this process, so that a run skips the process start-up (dynamic linking and
// SystemC's initialisation, about 4 ms of CPU: a third of a small 64-PE run). The
// reproduction's runner (python/emx/server.py) starts one per worker. A request is one
// SOCK_SEQPACKET message, "cwd\0word\0word...", carrying the command's stdin, stdout
// and stderr (SCM_RIGHTS); the replies are "pid N" once it started and then "exit N" or
// "signal N". EOF on the socket ends the server.
int cmd_serve(const std::vector<std::string>& w) {
  if (!w.empty()) throw cli::UsageError("usage: emx serve (requests on a socket at fd 0)");
  std::vector<char> buf(1 << 20);
  auto reply = [](const std::string& text) {
    return send(0, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  };
  for (;;) {
    iovec iov{buf.data(), buf.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = recvmsg(0, &msg, MSG_CMSG_CLOEXEC);
    if (n == 0) return 0;
    if (n < 0) {
      if (errno == EINTR) continue;
      std::cerr << "emx: serve: no request socket at fd 0 (" << std::strerror(errno) << ")\n";
      return kExitUsage;
    }
    std::vector<int> fds;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
        for (std::size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); ++k) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
          fds.push_back(fd);
        }
    std::vector<std::string> words;
    for (std::size_t at = 0; at < static_cast<std::size_t>(n);) {
      const std::size_t end = std::find(buf.begin() + at, buf.begin() + n, '\0') - buf.begin();
      words.emplace_back(buf.data() + at, end - at);
      at = end + 1;
    }
    if (fds.size() != 3 || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || words.empty()) {
      for (int fd : fds) close(fd);
      if (!reply("error: a request is cwd and words with 3 descriptors")) return 0;
      continue;
    }
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
      for (int k = 0; k < 3; ++k) dup2(fds[k], k);  // replaces the socket at fd 0
      for (int fd : fds) close(fd);
      int status = kExitUsage;
      if (chdir(words[0].c_str()) != 0)
        std::cerr << "emx: cannot enter the directory " << words[0] << "\n";
      else
        status = run_words(std::vector<std::string>(words.begin() + 1, words.end()));
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);
      std::_Exit(status);
    }
    for (int fd : fds) close(fd);
    if (pid < 0) {
      if (!reply(fmt::format("error: fork failed: {}", std::strerror(errno)))) return 0;
      continue;
    }
    const bool told = reply(fmt::format("pid {}", pid));
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (!told || !reply(WIFSIGNALED(st) ? fmt::format("signal {}", WTERMSIG(st))
                                        : fmt::format("exit {}", WEXITSTATUS(st))))
      return 0;
  }
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  // emx's stdout is the simulated console: keep SystemC's informational lines off it.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return run_words(std::vector<std::string>(argv + 1, argv + argc));
}

// Our own main (it takes precedence over the one in libsystemc.so) so that the SystemC
// banner is off before the kernel starts: emx's stdout is the simulated console.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
