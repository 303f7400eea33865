// emx's own output files (--stats, --stats-text, --profile): written whole and checked,
// every write and the close, so that a full disk or /dev/full is an error with a status
// rather than an empty file and status 0.
#pragma once
#include <stdexcept>
#include <string>

namespace emx::cli {

struct OutputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Writes `text` to `path` ("-": stderr), replacing what was there. Throws OutputError
// naming the option, the file and the reason.
void write_output(const std::string& option, const std::string& path, const std::string& text);

}  // namespace emx::cli
