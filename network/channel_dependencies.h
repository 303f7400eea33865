// The channel dependency graph of the routing function (Dally & Seitz): a vertex per
// buffer a packet can hold while it waits for the next one, an edge from each buffer to
// the buffer its route needs next. Routing is deadlock-free when this graph is acyclic.
// With buffer classes, the buffer is (link, class), the class being Routing::next_class
// (the scheme Fabric implements); without, it is the link alone (shown cyclic by the tests
// for the ring, torus and circular omega, which is why the classes are needed).
#pragma once
#include <cstddef>

#include "network/routing.h"

namespace emx::net {

struct ChannelDependencies {
  size_t vertices = 0;  // buffers that some route uses
  size_t edges = 0;     // distinct dependencies
  bool acyclic = true;
};

// Builds the graph from the routes of every (source, destination) endpoint pair.
ChannelDependencies channel_dependencies(const Routing& routing, bool with_classes);

}  // namespace emx::net
