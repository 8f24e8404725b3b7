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

  explicit DiskCache(std::string directory);

  const std::string &getDirectory() const { return directory; }

  /// The entry for `key`, if one is published and every checksum verifies.
  /// `why` says why a present entry was rejected.
  std::optional<CacheEntry> load(StringRef key, std::string *why = nullptr);

  /// Publishes an entry; fails (with a message) if the directory cannot be
  /// written. Losing a race to another writer of the same key is success.
  LogicalResult store(StringRef key, const CacheEntry &entry,
                      std::string *error = nullptr);

  struct Info {
    int64_t entries = 0;
    int64_t bytes = 0;
  };
  Info getInfo() const;
  /// Removes every entry; returns how many.
  int64_t clear();

  /// The directory of an entry (exposed for tests and --cache-info).
  std::string getEntryDirectory(StringRef key) const;

private:
  std::string directory;
};

/// Hex SHA-256 of `data`.
std::string sha256Hex(StringRef data);

} // namespace mlir::tile::jit

#endif // TILE_JIT_CACHE_H
