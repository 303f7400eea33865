// Several tracers at once (--trace with --explore, say): every event goes to each.
#pragma once
#include <memory>
#include <vector>

#include "tracer.h"

namespace emx::trace {

class TeeTrace : public Tracer {
 public:
  explicit TeeTrace(std::vector<std::unique_ptr<Tracer>> t) : t_(std::move(t)) {}

  void thread_begin(unsigned pe, uint64_t c, uint32_t entry, const std::string& name,
                    const pe::ThreadToken& t) override {
    for (auto& x : t_) x->thread_begin(pe, c, entry, name, t);
  }
  void thread_end(unsigned pe, uint64_t c) override {
    for (auto& x : t_) x->thread_end(pe, c);
  }
  void packet_sent(const net::Packet& p, uint64_t c, const std::string& where) override {
    for (auto& x : t_) x->packet_sent(p, c, where);
  }
  void packet_arrived(const net::Packet& p, uint64_t c, uint64_t s, uint64_t d,
                      const char* effect) override {
    for (auto& x : t_) x->packet_arrived(p, c, s, d, effect);
  }
  void input_buffer(unsigned pe, uint64_t c, std::size_t n) override {
    for (auto& x : t_) x->input_buffer(pe, c, n);
  }
  void network_sample(uint64_t from, uint64_t to, double mean, double max,
                      const std::vector<double>& ej) override {
    for (auto& x : t_) x->network_sample(from, to, mean, max, ej);
  }
  void finish(uint64_t end) override {
    for (auto& x : t_) x->finish(end);
  }
  void network(const net::Topology& t, uint32_t l) override {
    for (auto& x : t_) x->network(t, l);
  }
  void packet_hop(const net::Packet& p, uint32_t o, uint64_t s, uint64_t e) override {
    for (auto& x : t_) x->packet_hop(p, o, s, e);
  }
  void cell(unsigned pe, uint64_t c, uint32_t a, Cell w, const net::Packet& p) override {
    for (auto& x : t_) x->cell(pe, c, a, w, p);
  }
  void buffer_push(unsigned pe, uint64_t c, const net::Packet& p, bool s) override {
    for (auto& x : t_) x->buffer_push(pe, c, p, s);
  }
  void buffer_pop(unsigned pe, uint64_t c) override {
    for (auto& x : t_) x->buffer_pop(pe, c);
  }

 private:
  std::vector<std::unique_ptr<Tracer>> t_;
};

}  // namespace emx::trace
