// Host-side options of the ISS (sim.iss): how it runs, never what it computes.
#pragma once

namespace emx::iss {

struct IssConfig {
  bool translate = true;

  template <class V>
  void visit(V& v) {
    v.field("translate", translate, false, true,
            "translate hot code to host machine code (x86-64 hosts; elsewhere the interpreter "
            "runs): the same simulated figures, faster (docs/simulator.md, \"Speed\")");
  }
};

}  // namespace emx::iss
