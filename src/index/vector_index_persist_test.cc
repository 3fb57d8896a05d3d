// Persistence of the vector index: round trips, old (version 1) files, damaged files.
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/impl/io.h>
#include <faiss/index_io.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <xxhash.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "core/error.h"
#include "index/vector_index.h"
#include "support/temp_dir.h"
#include "support/vector_fixtures.h"

namespace mmkg {
namespace {

using namespace testing_vectors;

TEST(VectorIndexPersist, MissingFileIsNull) {
  testing::TempDir dir;
  VectorIndexOptions opt;
  std::string tag = "unchanged";
  EXPECT_EQ(load_vector_index(dir.file("nope.vec"), opt, &tag), nullptr);
  EXPECT_EQ(tag, "unchanged");
}

TEST(VectorIndexPersist, FlatRoundTrip) {
  testing::TempDir dir;
  VectorIndexOptions opt;
  opt.dim = 24;
  auto idx = make_vector_index(opt);
  Model m{24};
  m.add(*idx, iota_ids(120, 77, 2), random_unit(120, 24, 50));
  m.remove(*idx, {77, 79});
  std::string path = dir.file("v.idx");
  idx->save(path, "model=minilm;rows=118");
  // Only the index is left: no temporary file.
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.str())) files += e.path().filename() == "v.idx" ? 0 : 1;
  EXPECT_EQ(files, 0u);
  std::string tag;
  auto back = load_vector_index(path, opt, &tag);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(tag, "model=minilm;rows=118");
  EXPECT_EQ(back->kind(), VectorIndexKind::Flat);
  EXPECT_EQ(back->size(), 118);
  auto queries = random_unit(10, 24, 51);
  expect_same_results(*idx, *back, queries, 24, 10);
  expect_exact(*back, m, queries, 10);
  // The loaded index keeps working (replace, remove) and saving over the old file works.
  m.add(*back, {81}, random_unit(1, 24, 52));
  m.remove(*back, {83});
  expect_exact(*back, m, queries, 10);
  back->save(path, "");
  auto again = load_vector_index(path, opt, nullptr);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->size(), 117);
  // An empty index round-trips too.
  auto empty = make_vector_index(opt);
  empty->save(dir.file("e.idx"), "t");
  auto e2 = load_vector_index(dir.file("e.idx"), opt, &tag);
  ASSERT_NE(e2, nullptr);
  EXPECT_EQ(e2->size(), 0);
  EXPECT_EQ(tag, "t");
}

TEST(VectorIndexPersist, HnswRoundTripWithTombstones) {
  testing::TempDir dir;
  const int d = 48;
  auto opt = small_hnsw(d);
  auto idx = make_vector_index(opt);
  Model m{d};
  auto x = random_unit(800, d, 60);
  m.add(*idx, iota_ids(800, 10), x);
  std::vector<int64_t> gone = iota_ids(100, 10, 5);
  m.remove(*idx, gone);
  m.add(*idx, {11, 12}, random_unit(2, d, 61));  // replaced: two more tombstones
  ASSERT_EQ(idx->kind(), VectorIndexKind::Hnsw);
  std::string path = dir.file("h.idx");
  idx->save(path, "hnsw-tag");
  std::string tag;
  auto back = load_vector_index(path, opt, &tag);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(tag, "hnsw-tag");
  EXPECT_EQ(back->kind(), VectorIndexKind::Hnsw);
  EXPECT_EQ(back->size(), 700);
  auto queries = random_unit(30, d, 62);
  expect_same_results(*idx, *back, queries, d, 10);
  std::set<int64_t> removed(gone.begin(), gone.end());
  expect_absent(*back, x, d, 10, removed);
  EXPECT_GE(recall_at(*back, m, queries, 10), 0.95);
  // Deletes after loading: removed ids stay out, their slots are reused, and below half the
  // threshold it falls back to flat.
  std::vector<int64_t> more = iota_ids(100, 11, 5);  // ids 11, 16, ...: live ones
  m.remove(*back, more);
  std::set<int64_t> removed2(more.begin(), more.end());
  expect_absent(*back, x, d, 10, removed2);
  EXPECT_EQ(back->size(), static_cast<int64_t>(m.live.size()));
  m.add(*back, iota_ids(100, 5000), random_unit(100, d, 63));
  EXPECT_GE(recall_at(*back, m, queries, 10), 0.95);
  back->save(path, "again");
  auto third = load_vector_index(path, opt, nullptr);
  ASSERT_NE(third, nullptr);
  expect_same_results(*back, *third, queries, d, 10);
  expect_absent(*third, x, d, 10, removed2);
  std::vector<int64_t> rest;
  for (auto& [id, v] : m.live) rest.push_back(id);
  rest.resize(rest.size() - 50);
  m.remove(*back, rest);
  EXPECT_EQ(back->kind(), VectorIndexKind::Flat);
  expect_exact(*back, m, queries, 10);
}

TEST(VectorIndexPersist, RejectsCorruptFiles) {
  testing::TempDir dir;
  const int d = 8;
  auto opt = small_hnsw(d);
  opt.hnsw_threshold = 30;
  // One small flat and one small HNSW file, each damaged in every way below.
  for (int n : {20, 60}) {
    auto idx = make_vector_index(opt);
    idx->add(iota_ids(n, 1), random_unit(n, d, 70 + n).data());
    idx->remove({3});
    std::string good_path = dir.file("good" + std::to_string(n));
    idx->save(good_path, "tag");
    const std::string good = slurp(good_path);
    ASSERT_NE(load_vector_index(good_path, opt, nullptr), nullptr);
    const std::string bad = dir.file("bad");
    auto expect_io_error = [&](const std::string& content, const std::string& why, const char* must_contain) {
      spit(bad, content);
      try {
        load_vector_index(bad, opt, nullptr);
        ADD_FAILURE() << "no error for " << why;
      } catch (const IOError& e) {
        std::string msg = e.what();
        EXPECT_NE(msg.find(bad), std::string::npos) << msg;
        if (must_contain) {
          EXPECT_NE(msg.find(must_contain), std::string::npos) << why << ": " << msg;
        }
      } catch (const std::exception& e) {
        ADD_FAILURE() << why << ": wrong exception type: " << e.what();
      }
    };
    expect_io_error("", "empty file", "empty");
    expect_io_error("MMKGVEC", "short magic", "magic");
    expect_io_error(std::string("NOTAVEC\0", 8) + good.substr(8), "bad magic", "magic");
    std::string v3 = good;
    v3[8] = 3;
    expect_io_error(v3, "version 3", "version 3");
    // Every header/table byte, and a stride through the body.
    auto probe = [&](size_t i) { return i < 160 || i + 160 > good.size() || i % 53 == 0; };
    for (size_t len = 1; len < good.size(); ++len)
      if (probe(len)) expect_io_error(good.substr(0, len), "truncated", nullptr);
    expect_io_error(good.substr(0, good.size() - 1), "truncated by one", "truncated");
    expect_io_error(good + "x", "trailing byte", "corrupt");
    for (size_t i = 0; i < good.size(); ++i) {
      if (!probe(i)) continue;
      std::string flipped = good;
      flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
      expect_io_error(flipped, "flipped byte " + std::to_string(i), nullptr);
    }
    // A flipped byte inside the body is reported as a checksum mismatch.
    std::string late = good;
    late[good.size() / 2] ^= 1;
    expect_io_error(late, "flipped late byte", "checksum mismatch");
    std::mt19937 rng(n);
    for (int rep = 0; rep < 50; ++rep) {
      std::string junk(rng() % 4096, '\0');
      for (auto& ch : junk) ch = static_cast<char>(rng());
      expect_io_error(junk, "random bytes", nullptr);
      // Random bytes behind a valid magic and version.
      expect_io_error(good.substr(0, 12) + junk, "random body", nullptr);
    }
    // A valid file for a different embedding dimension.
    auto opt16 = opt;
    opt16.dim = 16;
    try {
      load_vector_index(good_path, opt16, nullptr);
      ADD_FAILURE() << "dimension mismatch not detected";
    } catch (const IOError& e) {
      EXPECT_NE(std::string(e.what()).find("dimension"), std::string::npos) << e.what();
    }
  }
}

/// Caps the address space while alive, so that a tampered size field fails with bad_alloc instead
/// of zero-filling gigabytes.
class AddressSpaceCap {
 public:
  explicit AddressSpaceCap(long extra_mb) {
    getrlimit(RLIMIT_AS, &old_);
    std::ifstream in("/proc/self/status");
    std::string line;
    long vm_kb = 0;
    while (std::getline(in, line))
      if (line.rfind("VmSize:", 0) == 0) vm_kb = std::atol(line.c_str() + 7);
    rlimit cap = old_;
    cap.rlim_cur = static_cast<rlim_t>(vm_kb + extra_mb * 1024) * 1024;
    if (old_.rlim_max != RLIM_INFINITY && cap.rlim_cur > old_.rlim_max) cap.rlim_cur = old_.rlim_max;
    setrlimit(RLIMIT_AS, &cap);
  }
  ~AddressSpaceCap() { setrlimit(RLIMIT_AS, &old_); }

 private:
  rlimit old_{};
};

TEST(VectorIndexPersist, TamperedFileWithValidChecksumDoesNotCrash) {
  // Beyond accidental damage (caught by the checksum): bytes changed inside the body (the FAISS
  // blob and tables of a flat file, the hnswlib graph of an HNSW one) with the checksum
  // recomputed. Loading either fails with IOError or yields an index whose searches stay in bounds.
  testing::TempDir dir;
  const int d = 8;
  auto opt = small_hnsw(d);
  opt.hnsw_threshold = 30;
  for (int n : {20, 60}) {
    auto idx = make_vector_index(opt);
    idx->add(iota_ids(n, 1), random_unit(n, d, 80 + n).data());
    idx->remove({3, 4});
    std::string good_path = dir.file("good");
    idx->save(good_path, "");
    const std::string good = slurp(good_path);
    const size_t body = 8 + 4 + 4 + 4 + 8 + 4;  // header with an empty tag, then the body
    auto queries = random_unit(3, d, 90);
    int loaded = 0, rejected = 0;
    // FAISS's reader leaks what it allocated when it throws, and resizes vectors to a (bounded)
    // length read from the file before reading them: the cap turns a multi-GB length into
    // bad_alloc, and flipping only the lowest bit of each byte keeps the leaks small.
    AddressSpaceCap cap(3072);
    for (size_t i = body; i + 8 < good.size(); ++i)
      for (unsigned char mask : {0x01}) {
        std::string t = good;
        t[i] = static_cast<char>(t[i] ^ mask);
        uint64_t sum = XXH3_64bits(t.data(), t.size() - 8);
        std::memcpy(t.data() + t.size() - 8, &sum, 8);
        spit(dir.file("t"), t);
        std::unique_ptr<VectorIndex> v;
        try {
          v = load_vector_index(dir.file("t"), opt, nullptr);
        } catch (const IOError&) {
          ++rejected;
          continue;
        }
        ASSERT_NE(v, nullptr);
        ++loaded;
        SCOPED_TRACE("n=" + std::to_string(n) + " byte " + std::to_string(i) + " of " + std::to_string(good.size()) +
                     " mask " + std::to_string(mask) + " kind " + vector_index_kind_name(v->kind()));
        for (int q = 0; q < 3; ++q) {
          for (int k : {1, 5, 1000}) {
            auto h = v->search(queries.data() + q * d, k);
            EXPECT_LE(h.size(), static_cast<size_t>(v->size()));
          }
        }
        v->add({1000}, queries.data());
        v->remove({1, 2, 1000});
      }
    EXPECT_GT(rejected, 0);
    EXPECT_GT(loaded, 0);  // e.g. changed vector values are undetectable without the checksum
  }
}

TEST(VectorIndexPersist, TwoWritersSavingAtOnceBothSucceedAndLeaveOneWholeIndex) {
  testing::TempDir dir;
  VectorIndexOptions opt;
  opt.dim = 16;
  opt.hnsw_threshold = 60;  // one flat, one HNSW
  auto a = make_vector_index(opt), b = make_vector_index(opt);
  Model m{16};
  m.add(*a, iota_ids(50, 1, 1), random_unit(50, 16, 3));
  m.add(*b, iota_ids(80, 1, 1), random_unit(80, 16, 4));
  ASSERT_EQ(b->kind(), VectorIndexKind::Hnsw);
  const std::string path = dir.file("v.idx");
  std::atomic<int> errors{0};
  auto saver = [&](const VectorIndex& idx, const std::string& tag) {
    for (int i = 0; i < 20; ++i) {
      try {
        idx.save(path, tag);
      } catch (const std::exception&) {
        ++errors;
      }
    }
  };
  std::thread t1(saver, std::cref(*a), "a"), t2(saver, std::cref(*b), "b");
  t1.join();
  t2.join();
  EXPECT_EQ(errors.load(), 0);
  std::string tag;
  auto back = load_vector_index(path, opt, &tag);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->size(), tag == "a" ? 50 : 80);
}

/// A version-1 file as the FAISS-only mmkg wrote it: header, FAISS blob, ids, tombstones, checksum.
std::string version1_file(uint32_t kind, const faiss::Index& index, const std::vector<int64_t>& ids,
                          const std::string& tag) {
  faiss::VectorIOWriter blob;
  faiss::write_index(&index, &blob);
  std::string out("MMKGVEC\0", 8);
  auto put = [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  uint32_t version = 1, dim = static_cast<uint32_t>(index.d), tag_len = static_cast<uint32_t>(tag.size());
  uint64_t count = ids.size(), blob_len = blob.data.size(), n_ids = ids.size(), n_dead = 0;
  put(&version, 4);
  put(&dim, 4);
  put(&kind, 4);
  put(&count, 8);
  put(&tag_len, 4);
  put(tag.data(), tag.size());
  put(&blob_len, 8);
  put(blob.data.data(), blob.data.size());
  put(&n_ids, 8);
  put(ids.data(), ids.size() * 8);
  put(&n_dead, 8);
  uint64_t sum = XXH3_64bits(out.data(), out.size());
  put(&sum, 8);
  return out;
}

TEST(VectorIndexPersist, Version1FlatFilesStillLoadAndFaissHnswFilesAskForARebuild) {
  testing::TempDir dir;
  const int d = 16;
  auto x = random_unit(40, d, 7);
  std::vector<int64_t> ids = iota_ids(40, 10, 3);
  VectorIndexOptions opt;
  opt.dim = d;

  faiss::IndexFlatIP flat(d);
  flat.add(40, x.data());
  spit(dir.file("flat1"), version1_file(0, flat, ids, "old@7"));
  std::string tag;
  auto back = load_vector_index(dir.file("flat1"), opt, &tag);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(tag, "old@7");
  EXPECT_EQ(back->kind(), VectorIndexKind::Flat);
  Model m{d};
  for (size_t i = 0; i < ids.size(); ++i) m.live[ids[i]].assign(x.begin() + i * d, x.begin() + (i + 1) * d);
  expect_exact(*back, m, random_unit(5, d, 8), 10);

  faiss::IndexHNSWFlat hnsw(d, 8, faiss::METRIC_INNER_PRODUCT);
  hnsw.add(40, x.data());
  spit(dir.file("hnsw1"), version1_file(1, hnsw, ids, "old@7"));
  try {
    load_vector_index(dir.file("hnsw1"), opt, &tag);
    ADD_FAILURE() << "a version-1 FAISS HNSW file was accepted";
  } catch (const IOError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("older mmkg"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rebuild"), std::string::npos) << msg;
  }
}

TEST(VectorIndexPersist, HnswFileIsReproducedByteForByte) {
  // Loading and saving again writes the same bytes (the graph is copied exactly), and the
  // results of the loaded index are identical, scores included.
  testing::TempDir dir;
  const int d = 32;
  auto opt = small_hnsw(d);
  auto idx = make_vector_index(opt);
  Model m{d};
  m.add(*idx, iota_ids(1500, 1), clustered_unit(1500, d, 15, 0.8f, 70));
  m.remove(*idx, iota_ids(200, 1, 4));
  m.add(*idx, iota_ids(50, 9000), clustered_unit(50, d, 15, 0.8f, 71));  // reuses deleted slots
  idx->save(dir.file("a"), "t");
  auto back = load_vector_index(dir.file("a"), opt, nullptr);
  ASSERT_NE(back, nullptr);
  back->save(dir.file("b"), "t");
  EXPECT_EQ(slurp(dir.file("a")), slurp(dir.file("b")));
  auto queries = clustered_unit(40, d, 15, 0.8f, 72);
  expect_same_results(*idx, *back, queries, d, 10);
  expect_same_results(*idx, *back, queries, d, 1400);
}

}  // namespace
}  // namespace mmkg
