//===- Cache.cpp - The on-disk compilation cache --------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/Cache.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>

using namespace mlir;
using namespace mlir::tile::jit;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static constexpr StringLiteral kMetaFile = "meta.json";
static constexpr StringLiteral kHostFile = "host.o";
static constexpr StringLiteral kDeviceFile = "device.bin";
static constexpr int64_t kFormatVersion = 1;

std::string mlir::tile::jit::sha256Hex(StringRef data) {
  std::array<uint8_t, 32> hash = llvm::SHA256::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()),
                        data.size()));
  return llvm::toHex(hash, /*LowerCase=*/true);
}

std::string DiskCache::getDefaultDirectory() {
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("TILE_CACHE_DIR"))
    if (!env->empty())
      return *env;
  SmallString<256> dir;
  if (std::optional<std::string> xdg =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty())
    dir = *xdg;
  else if (!llvm::sys::path::home_directory(dir))
    dir = llvm::sys::path::get_separator(); // No home: an unwritable root.
  else
    path::append(dir, ".cache");
  path::append(dir, "tile");
  return std::string(dir);
}

DiskCache::DiskCache(std::string directory) : directory(std::move(directory)) {}

std::string DiskCache::getEntryDirectory(StringRef key) const {
  SmallString<256> dir(directory);
  path::append(dir, key.take_front(2), key);
  return std::string(dir);
}

static std::optional<std::string> readFile(StringRef file) {
  auto buffer = llvm::MemoryBuffer::getFile(file, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().str();
}

static LogicalResult writeFile(StringRef file, StringRef data,
                               std::string *error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(file, ec, fs::OF_None);
  if (!ec) {
    os << data;
    os.close();
    ec = os.error();
  }
  if (ec) {
    if (error)
      *error = "cannot write " + file.str() + ": " + ec.message();
    return failure();
  }
  return success();
}

std::optional<CacheEntry> DiskCache::load(StringRef key, std::string *why) {
  std::string dir = getEntryDirectory(key);
  if (!fs::is_directory(dir))
    return std::nullopt;
  auto reject = [&](const Twine &reason) -> std::optional<CacheEntry> {
    if (why)
      *why = reason.str();
    // A bad entry is removed so that the rebuild can publish a good one.
    fs::remove_directories(dir, /*IgnoreErrors=*/true);
    return std::nullopt;
  };
  SmallString<256> metaPath(dir);
  path::append(metaPath, kMetaFile);
  std::optional<std::string> metaText = readFile(metaPath);
  if (!metaText)
    return reject("meta.json is missing");
  llvm::Expected<llvm::json::Value> meta = llvm::json::parse(*metaText);
  if (!meta) {
    llvm::consumeError(meta.takeError());
    return reject("meta.json is not valid JSON");
  }
  const llvm::json::Object *object = meta->getAsObject();
  if (!object || object->getInteger("format") != kFormatVersion ||
      object->getString("key") != key)
    return reject("meta.json does not describe this entry");

  CacheEntry entry;
  const llvm::json::Object *files = object->getObject("files");
  if (!files)
    return reject("meta.json lists no files");
  for (auto [name, target] :
       {std::make_pair(kHostFile, &entry.hostObject),
        std::make_pair(kDeviceFile, &entry.deviceBinary)}) {
    std::optional<StringRef> expected = files->getString(name);
    if (!expected)
      continue;
    SmallString<256> file(dir);
    path::append(file, name);
    std::optional<std::string> data = readFile(file);
    if (!data)
      return reject(Twine(name) + " is missing");
    if (sha256Hex(*data) != *expected)
      return reject(Twine(name) + " does not match its checksum");
    *target = std::move(*data);
  }
  if (entry.hostObject.empty())
    return reject("the entry has no host object");
  for (auto [field, list] : {std::make_pair("constructors", &entry.constructors),
                             std::make_pair("destructors", &entry.destructors)})
    if (const llvm::json::Array *names = object->getArray(field))
      for (const llvm::json::Value &name : *names)
        if (std::optional<StringRef> s = name.getAsString())
          list->push_back(s->str());
  if (std::optional<StringRef> description =
          object->getString("description"))
    entry.description = description->str();
  return entry;
}

LogicalResult DiskCache::store(StringRef key, const CacheEntry &entry,
                               std::string *error) {
  std::string finalDir = getEntryDirectory(key);
  if (fs::is_directory(finalDir))
    return success();
  // Stage beside the final location (same file system, so rename is
  // atomic), under a name no other writer uses.
  static std::atomic<unsigned> counter{0};
  SmallString<256> staging(directory);
  path::append(staging, "staging",
               key + "." + Twine(llvm::sys::Process::getProcessId()) + "." +
                   Twine(counter++));
  if (std::error_code ec = fs::create_directories(staging)) {
    if (error)
      *error = "cannot create " + std::string(staging) + ": " + ec.message();
    return failure();
  }
  auto fail = [&]() {
    fs::remove_directories(staging, /*IgnoreErrors=*/true);
    return failure();
  };
  llvm::json::Object files;
  for (auto [name, data] : {std::make_pair(kHostFile, &entry.hostObject),
                            std::make_pair(kDeviceFile, &entry.deviceBinary)}) {
    if (data->empty())
      continue;
    SmallString<256> file(staging);
    path::append(file, name);
    if (failed(writeFile(file, *data, error)))
      return fail();
    files[name] = sha256Hex(*data);
  }
  llvm::json::Object meta{
      {"format", kFormatVersion},
      {"key", key},
      {"description", entry.description},
      {"files", std::move(files)},
      {"constructors", llvm::json::Array(entry.constructors)},
      {"destructors", llvm::json::Array(entry.destructors)},
  };
  std::string metaText;
  llvm::raw_string_ostream(metaText) << llvm::json::Value(std::move(meta));
  SmallString<256> metaPath(staging);
  path::append(metaPath, kMetaFile);
  // meta.json last: an entry is complete once it exists.
  if (failed(writeFile(metaPath, metaText, error)))
    return fail();
  if (std::error_code ec = fs::create_directories(path::parent_path(finalDir))) {
    if (error)
      *error = "cannot create " + finalDir + ": " + ec.message();
    return fail();
  }
  if (std::error_code ec = fs::rename(staging, finalDir)) {
    // Another process published this key first: theirs is as good.
    fs::remove_directories(staging, /*IgnoreErrors=*/true);
    if (fs::is_directory(finalDir))
      return success();
    if (error)
      *error = "cannot publish " + finalDir + ": " + ec.message();
    return failure();
  }
  return success();
}

/// Calls `fn` on every published entry directory.
static void forEachEntry(StringRef root,
                         function_ref<void(StringRef dir)> fn) {
  std::error_code ec;
  for (fs::directory_iterator shard(root, ec), end; !ec && shard != end;
       shard.increment(ec)) {
    StringRef name = path::filename(shard->path());
    if (name.size() != 2 || !llvm::all_of(name, llvm::isHexDigit))
      continue;
    std::error_code inner;
    for (fs::directory_iterator entry(shard->path(), inner); !inner &&
                                                             entry != end;
         entry.increment(inner))
      fn(entry->path());
  }
}

DiskCache::Info DiskCache::getInfo() const {
  Info info;
  forEachEntry(directory, [&](StringRef dir) {
    ++info.entries;
    std::error_code ec;
    for (fs::directory_iterator file(dir, ec), end; !ec && file != end;
         file.increment(ec)) {
      uint64_t size = 0;
      if (!fs::file_size(file->path(), size))
        info.bytes += size;
    }
  });
  return info;
}

int64_t DiskCache::clear() {
  int64_t removed = 0;
  SmallVector<std::string> dirs;
  forEachEntry(directory, [&](StringRef dir) { dirs.push_back(dir.str()); });
  for (const std::string &dir : dirs)
    if (!fs::remove_directories(dir, /*IgnoreErrors=*/true))
      ++removed;
  SmallString<256> staging(directory);
  path::append(staging, "staging");
  fs::remove_directories(staging, /*IgnoreErrors=*/true);
  return removed;
}
