#include "racepred/cli/output.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace racepred::cli {

ReportOutput::ReportOutput(std::string path) : path_(path == "-" ? "" : std::move(path)) {}

ReportOutput::~ReportOutput() {
  discard();
}

std::string ReportOutput::destination() const {
  return path_.empty() ? "standard output" : path_;
}

std::ostream& ReportOutput::stream() {
  if (path_.empty()) return std::cout;
  if (!file_) {
    std::string pattern = path_ + ".tmp.XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0)
      throw OutputError("racepred: error: cannot create " + pattern + " for " + path_ + ": " +
                        std::strerror(errno));
    const mode_t mask = umask(0);  // the report gets the usual permissions, not mkstemp's 0600
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    ::close(fd);
    temp_ = pattern;
    file_ = std::make_unique<std::ofstream>(temp_, std::ios::binary | std::ios::trunc);
    if (!*file_) {
      const int e = errno;
      discard();
      throw OutputError("racepred: error: cannot write " + path_ + ": " + std::strerror(e));
    }
  }
  return *file_;
}

void ReportOutput::commit() {
  if (committed_) return;
  if (path_.empty()) {
    errno = 0;
    std::cout.flush();
    if (!std::cout) {
      const int e = errno;
      std::cout.clear();
      throw OutputError("racepred: error: cannot write the report to standard output" +
                        std::string(e ? ": " : "") + (e ? std::strerror(e) : ""));
    }
    committed_ = true;
    return;
  }
  stream();  // an empty report still creates the file
  errno = 0;
  file_->flush();
  file_->close();
  if (!*file_) {
    const int e = errno;
    discard();
    throw OutputError("racepred: error: cannot write the report to " + path_ +
                      std::string(e ? ": " : "") + (e ? std::strerror(e) : ""));
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    discard();
    throw OutputError("racepred: error: cannot write the report to " + path_ + ": " +
                      std::strerror(e));
  }
  temp_.clear();
  committed_ = true;
}

void ReportOutput::discard() {
  if (file_) file_.reset();
  if (!temp_.empty()) {
    std::remove(temp_.c_str());
    temp_.clear();
  }
}

}  // namespace racepred::cli
