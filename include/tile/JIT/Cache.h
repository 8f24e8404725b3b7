//===- Cache.h - The on-disk compilation cache ------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Compiled modules on disk, under $TILE_CACHE_DIR (default ~/.cache/tile):
// one directory per key holding the host object, the device binary and
// meta.json (what the files are, their SHA-256, the constructors to run).
// Entries are written into a staging directory and published with one
// rename, so readers never see a partial entry and concurrent writers of one
// key are safe; a load verifies every checksum, and an entry that does not
// verify is a miss (and is removed), never a crash.
//
// The cache is bounded ($TILE_CACHE_SIZE, default 2 GiB): after each store,
// the least recently used entries (an entry's directory time is its last
// use: a hit touches it) are evicted until the rest fit. An entry leaves by
// one rename into trash/ before it is deleted, so a reader sees all of it
// or none of it; a load reads every file into memory before it returns, so
// nothing it handed out depends on the entry staying. Staging directories
// that writers left behind (a process killed mid-write) are removed once
// they are an hour old.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_CACHE_H
#define TILE_JIT_CACHE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::tile::jit {

/// What a cache entry holds.
struct CacheEntry {
  std::string hostObject;
  std::string deviceBinary;
  /// Host functions to call after loading, and before unloading.
  std::vector<std::string> constructors, destructors;
  /// Free-form description kept in meta.json (target, chip, functions).
  std::string description;
};

class DiskCache {
public:
  /// $TILE_CACHE_DIR, else ~/.cache/tile.
  static std::string getDefaultDirectory();

  /// The size cap in bytes: $TILE_CACHE_SIZE (a byte count, or with a
  /// suffix K, M, G or T, powers of 1024, optionally followed by "B" or
  /// "iB"), else 2 GiB. A value that does not parse gives the default and,
  /// in `note`, why.
  static int64_t getDefaultSizeLimit(std::string *note = nullptr);
  /// Parses a size as $TILE_CACHE_SIZE takes it.
  static std::optional<int64_t> parseSize(StringRef text);

  /// A cache in `directory` holding at most `sizeLimit` bytes of entries (0:
  /// nothing is stored).
  explicit DiskCache(std::string directory,
                     int64_t sizeLimit = getDefaultSizeLimit());

  const std::string &getDirectory() const { return directory; }

  /// Whether this process may trust the cache with code it will run:
  /// creates the directory (0700) if it is missing, then requires it to be
  /// a directory owned by this process's user and not writable by group or
  /// others (otherwise anyone who can write it could replace entries and
  /// their checksums alike). `why` says why not.
  LogicalResult checkTrusted(std::string *why) const;
  int64_t getSizeLimit() const { return sizeLimit; }

  /// The entry for `key`, if one is published, its directory and files are
  /// this user's and writable by no one else, and every checksum verifies.
  /// `why` says why a present entry was rejected.
  std::optional<CacheEntry> load(StringRef key, std::string *why = nullptr);

  /// Publishes an entry, then evicts least recently used entries (never
  /// this one) until the cache fits its size cap; fails (with a message) if
  /// the directory cannot be written. Losing a race to another writer of the
  /// same key is success, and so is skipping an entry larger than the whole
  /// cap.
  LogicalResult store(StringRef key, const CacheEntry &entry,
                      std::string *error = nullptr);

  /// Evicts least recently used entries, other than `keep`, until the
  /// entries take at most `limit` bytes, and removes stale staging
  /// directories; returns how many entries it evicted.
  int64_t evict(int64_t limit, StringRef keep = {});

  struct Info {
    int64_t entries = 0;
    int64_t bytes = 0;
    /// The size cap.
    int64_t limit = 0;
  };
  Info getInfo() const;
  /// Removes every entry; returns how many.
  int64_t clear();

  /// The directory of an entry (exposed for tests and --cache-info).
  std::string getEntryDirectory(StringRef key) const;

private:
  std::string directory;
  int64_t sizeLimit;
};

/// What `write` writes to the file path it is given, captured through a
/// pipe rather than a file, so that neither a file-size limit (whose
/// SIGXFSZ would kill the process mid-write) nor a full or unwritable
/// temporary directory applies: e.g. ExecutionEngine::dumpToObjectFile.
/// Empty if nothing could be captured.
std::string captureFileWrites(function_ref<void(StringRef path)> write);

/// Hex SHA-256 of `data`.
std::string sha256Hex(StringRef data);

} // namespace mlir::tile::jit

#endif // TILE_JIT_CACHE_H
