// Typed errors. Exceptions end one request (one file, one command); expected outcomes are values.
#pragma once

#include <stdexcept>
#include <string>

namespace mmkg {

/// Base of all mmkg errors. `what()` is a full sentence: what happened; what to do.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A bad input file (corrupt, encrypted, empty, unsupported). Ingest reports it and goes on.
class InputError : public Error {
 public:
  using Error::Error;
};

/// A file-system or database I/O problem.
class IOError : public Error {
 public:
  using Error::Error;
};

/// Wrong usage or configuration (exit code 2).
class UsageError : public Error {
 public:
  using Error::Error;
};

}  // namespace mmkg
