// The whole machine's configuration: one typed struct per component, each declaring its
// keys (with defaults, ranges and meaning) in its visit(); docs/config.md is generated
// from these declarations by `emx config --doc`.
#pragma once
#include <cstdint>
#include <string>

#include "network/network_config.h"
#include "sim/config/fields.h"
#include "sim/iss/iss_config.h"
#include "sim/iss/timing_config.h"
#include "sim/mem/local_memory.h"
#include "sim/pe/pe_config.h"

namespace emx::machine {

struct PeConfig {
  uint32_t memory_bytes = 4u << 20;  // [assumed] 1 M words per PE
  uint32_t reserved_bytes = 256u << 10;  // [assumed] input-buffer spill area: 32 K packets
  iss::TimingConfig timing;
  pe::IsaFeatures isa;
  pe::ThreadConfig threads;
  pe::InputBufferConfig input_buffer;
  pe::MemoryUnitConfig memory_unit;

  template <class V>
  void visit(V& v) {
    v.field("memory_bytes", memory_bytes, 64u << 10, mem::kMaxBytes,
            "local memory per PE in bytes, a multiple of 4 KiB (22-bit word addresses: at most "
            "16 MiB) [assumed: 4 MiB]");
    v.field("reserved_bytes", reserved_bytes, 0u, 8u << 20,
            "bytes at the top of local memory kept for the hardware (input-buffer spill area); "
            "the stack starts below them");
    v.group("timing", timing, "clocks per instruction class");
    v.group("isa", isa, "instruction-set features");
    v.group("threads", threads, "thread dispatch and frames");
    v.group("input_buffer", input_buffer, "input buffer unit");
    v.group("memory_unit", memory_unit, "memory control and matching units");
  }
};

enum class StartMode : uint8_t { all, pe0 };

struct HostConfig {
  StartMode start = StartMode::all;
  double bandwidth_mb_s = 1.5;   // [paper] host file access runs at 1-2 MB/s
  bool charge_load_time = false;  // model the time to load the program through the host
  std::string file_root;          // directory the program may access (none when empty)

  template <class V>
  void visit(V& v) {
    static const config::Choice<StartMode> kStart[] = {{"all", StartMode::all},
                                                       {"pe0", StartMode::pe0}};
    v.choice("start", start, kStart,
             "start the program on every PE (SPMD, as EM-C programs ran) or on PE 0 only");
    v.field("bandwidth_mb_s", bandwidth_mb_s, 0.01, 1000.0,
            "host interface transfer rate in MB/s [paper: 1-2 MB/s]");
    v.field("charge_load_time", charge_load_time, false, true,
            "start the PEs only after the program image has crossed the host interface");
    v.field("file_root", file_root,
            "directory the simulated program's files are in (emx run --files DIR); nothing "
            "outside it is reachable; empty: file calls fail with EACCES");
  }
};

struct SimConfig {
  uint64_t quantum_cycles = 1000;
  uint64_t quantum_max_cycles = 65536;
  uint64_t max_cycles = kDefaultMaxCycles;
  bool register_dump = true;
  iss::IssConfig iss;
  // A runaway program stops after 625 s of simulated time at 16 MHz (a healthy run of the
  // experiments takes well under a second); 0 lifts the limit.
  static constexpr uint64_t kDefaultMaxCycles = 10'000'000'000;

  template <class V>
  void visit(V& v) {
    v.field("quantum_cycles", quantum_cycles, uint64_t{1}, uint64_t{1} << 20,
            "temporal decoupling: clocks a PE may run ahead before it synchronises (a speed "
            "knob: every program of the build gives the same figures at quanta 1 to 2^20)");
    v.field("quantum_max_cycles", quantum_max_cycles, uint64_t{1}, uint64_t{1} << 20,
            "adaptive quantum: a PE that ran a whole quantum without interacting (no send, "
            "thread end, tag settle, clock read) doubles its next one, up to this (at most "
            "quantum_cycles: no growth); its first interaction brings it back");
    v.field("max_cycles", max_cycles, uint64_t{0}, UINT64_MAX,
            "stop the run with a time-limit report after this many clocks (0: no limit; "
            "emx run --max-cycles N sets it too)");
    v.field("register_dump", register_dump, false, true, "print the registers in a fault report");
    v.group("iss", iss, "instruction-set simulator (host side)");
  }
};

struct MachineConfig {
  std::string name = "emx";
  uint32_t pes = 1;
  double clock_mhz = 16.0;
  PeConfig pe;
  net::NetworkConfig network;
  HostConfig host;
  SimConfig sim;

  template <class V>
  void visit(V& v) {
    v.field("name", name, "name of this machine variant (informative)");
    v.field("pes", pes, 1u, 1024u, "number of PEs (10-bit PE field: at most 1024)");
    v.field("clock_mhz", clock_mhz, 0.001, 10000.0,
            "PE clock in MHz [paper: EM-X designed for 20, measured at 16; EM-4 12.5]");
    v.group("pe", pe, "processing element (EMC-Y)");
    v.group("network", network, "interconnection network");
    v.group("host", host, "host interface");
    v.group("sim", sim, "simulation control");
  }

  void validate() const;  // cross-key checks (config::ConfigError)

  // Clock period in picoseconds (SystemC time unit); cycles are exact, times derived.
  uint64_t period_ps() const { return static_cast<uint64_t>(1e6 / clock_mhz + 0.5); }
  // The stack starts below the hardware-reserved top of local memory.
  uint32_t stack_top() const { return pe.memory_bytes - pe.reserved_bytes; }
};

}  // namespace emx::machine
