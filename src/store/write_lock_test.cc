#include "store/write_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "core/error.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

TEST(StoreWriteLock, SecondWriterWaitsNamingTheHolderThenProceeds) {
  testing::TempDir dir;
  auto first = std::make_unique<StoreWriteLock>(dir.str());
  std::string pid_line;
  std::ifstream(StoreWriteLock::path(dir.str())) >> pid_line;
  EXPECT_EQ(pid_line, std::to_string(::getpid()));

  std::atomic<bool> waited{false}, acquired{false};
  std::string message;
  std::thread second([&] {
    StoreWriteLock lock(dir.str(), [&](const std::string& m) {
      message = m;
      waited = true;
    });
    acquired = true;
  });
  while (!waited) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The holder still has it: the waiter must not get through (it is blocked in flock).
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(acquired);
  first.reset();
  second.join();
  EXPECT_TRUE(acquired);
  EXPECT_NE(message.find("pid " + std::to_string(::getpid())), std::string::npos) << message;
  EXPECT_NE(message.find("waiting"), std::string::npos) << message;
}

TEST(StoreWriteLock, UncontendedLockDoesNotWaitAndIsReleased) {
  testing::TempDir dir;
  int waits = 0;
  { StoreWriteLock a(dir.str(), [&](const std::string&) { ++waits; }); }
  { StoreWriteLock b(dir.str(), [&](const std::string&) { ++waits; }); }
  EXPECT_EQ(waits, 0);
}

TEST(StoreWriteLock, MissingStoreFolderIsAnIOError) {
  testing::TempDir dir;
  EXPECT_THROW(StoreWriteLock(dir.str() + "/no/such/folder"), IOError);
}

}  // namespace
}  // namespace mmkg
