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

/// The store is locked by another connection (SQLite's BUSY or LOCKED, after the busy timeout).
/// Every later write fails the same way, so a batch stops on it.
class StoreLockedError : public IOError {
 public:
  using IOError::IOError;
};

/// The disk is full while writing the store (SQLite's FULL). Every later write fails the same
/// way, so a batch stops on it.
class StoreFullError : public IOError {
 public:
  using IOError::IOError;
};

/// Wrong usage or configuration (exit code 2).
class UsageError : public Error {
 public:
  using Error::Error;
};

/// The work was stopped by its caller (a client that left, an MCP cancellation) before it
/// finished: nothing was answered and nothing is wrong. Not an Error, so that no step takes it
/// for a failure to fall back from: it goes up to whoever set the stop flag.
class Cancelled : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The thing named (a figure, an entity) does not exist: exit code 1 for the CLI, 404 for the
/// server.
class NotFoundError : public Error {
 public:
  using Error::Error;
};

}  // namespace mmkg
