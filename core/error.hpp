// Errors are exceptions with a category (docs/design.md, "Failure semantics"):
//   usage       - bad input or environment (an output that cannot be written, a missing install
//                 file); the CLI exits 2 naming the argument, variable or path, and what to do;
//   unavailable - a backend or kernel cannot run here; the entry is skipped, its reason recorded;
//   failure     - anything else; exit 1 with context.
#pragma once

#include <stdexcept>
#include <string>

namespace parlab {

enum class ErrorCategory { usage, unavailable, failure };

inline const char* to_string(ErrorCategory c) {
  switch (c) {
    case ErrorCategory::usage: return "usage";
    case ErrorCategory::unavailable: return "unavailable";
    case ErrorCategory::failure: return "failure";
  }
  return "failure";
}

class Error : public std::runtime_error {
 public:
  Error(ErrorCategory category, const std::string& what)
      : std::runtime_error(what), category_(category) {}
  ErrorCategory category() const noexcept { return category_; }

 private:
  ErrorCategory category_;
};

class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(ErrorCategory::usage, what) {}
};

class UnavailableError : public Error {
 public:
  explicit UnavailableError(const std::string& what) : Error(ErrorCategory::unavailable, what) {}
};

class FailureError : public Error {
 public:
  explicit FailureError(const std::string& what) : Error(ErrorCategory::failure, what) {}
};

}  // namespace parlab
