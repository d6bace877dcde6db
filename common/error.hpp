#pragma once
// The base of every error yadokari throws. Each module keeps its own subclass (StorageError,
// ImageError, ...) so callers can tell where a failure came from, while one `catch (const Error&)`
// at a process boundary (the CLI's main, the shim's entry points) reports any of them.
// what() is always a complete sentence fit for a one-line `yadokari: ...` message.
#include <stdexcept>
#include <string>

namespace yadokari {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A system call on a named file failed; what() is the whole sentence ("cannot write <file>: ...").
class IoError : public Error {
 public:
  IoError(const std::string& file, const std::string& sentence) : Error(sentence), file_(file) {}
  const std::string& file() const { return file_; }

 private:
  std::string file_;
};

}  // namespace yadokari
