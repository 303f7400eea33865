// Reading a file the user names (a config, an "extends" base, a program): only a regular
// file, and no more than a limit. A FIFO or device is refused without blocking on it or
// reading it (--config /dev/urandom used to be read until memory ran out; a FIFO hung).
#pragma once
#include <cstddef>
#include <string>

namespace emx::host {

struct BoundedRead {
  std::string data;
  std::string error;  // why the file cannot be used ("is a FIFO, ..."); empty: read whole
};

// `kind` names the file in errors ("config file", "program file").
BoundedRead read_bounded(const std::string& path, std::size_t limit, const char* kind);

// "4 MiB", "1.5 GiB": a size in errors.
std::string size_text(unsigned long long bytes);

}  // namespace emx::host
