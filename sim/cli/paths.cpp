#include "paths.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "options.h"

namespace fs = std::filesystem;

namespace emx::cli {
namespace {

fs::path self_dir() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : p.parent_path();
}

fs::path source_root() {
  if (const char* h = std::getenv("EMX_HOME")) return h;
  return EMX_SOURCE_DIR;  // compiled in by CMake
}

fs::path build_root() { return self_dir().parent_path(); }  // build/sim/emx -> build

}  // namespace

std::string resolve_config(const std::string& n) {
  if (n.empty()) return (source_root() / "configs" / "emx80-16mhz.json").string();
  if (fs::exists(n)) return n;
  const fs::path named = source_root() / "configs" / (n + (fs::path(n).has_extension() ? "" : ".json"));
  if (n.find('/') == std::string::npos && fs::exists(named)) return named.string();
  throw UsageError("no config file '" + n + "' (nor " + named.string() + ")");
}

std::string resolve_program(const std::string& n) {
  if (fs::exists(n)) return n;
  if (n.find('/') == std::string::npos) {
    for (const fs::path& dir : {build_root() / "programs", source_root() / "build" / "programs"}) {
      const fs::path p = dir / (n + ".elf");
      if (fs::exists(p)) return p.string();
    }
  }
  throw UsageError("no program '" + n + "': give an ELF path or the name of a program in " +
                   (build_root() / "programs").string());
}

void check_writable(const std::string& option, const std::string& path) {
  if (path.empty() || path == "-") return;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw UsageError(option + " " + path + ": is a directory, not a file to write");
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
  if (!fs::is_directory(dir, ec))
    throw UsageError(option + " " + path + ": there is no directory " + dir.string());
  // An existing file needs to be writable (/dev/full is, in a directory that is not); a
  // new one, its directory.
  if (fs::exists(path, ec) ? access(path.c_str(), W_OK) != 0 : access(dir.c_str(), W_OK) != 0)
    throw UsageError(option + " " + path + ": cannot write there");
}

}  // namespace emx::cli
