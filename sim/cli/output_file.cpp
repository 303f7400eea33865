#include "output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace emx::cli {

void write_output(const std::string& option, const std::string& path, const std::string& text) {
  auto fail = [&](const char* what) {
    return OutputError(option + " " + path + ": " + what + ": " + std::strerror(errno));
  };
  const bool to_stderr = path == "-";
  const int fd = to_stderr ? STDERR_FILENO
                           : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) throw fail("cannot open it");
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      const OutputError e = fail("cannot write it");
      if (!to_stderr) ::close(fd);
      throw e;
    }
    done += static_cast<std::size_t>(n);
  }
  if (!to_stderr && ::close(fd) != 0) throw fail("cannot close it");
}

}  // namespace emx::cli
