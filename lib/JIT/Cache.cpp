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

#include <algorithm>
#include <atomic>
#include <chrono>

#include <thread>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::tile::jit;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

static constexpr StringLiteral kMetaFile = "meta.json";
static constexpr StringLiteral kHostFile = "host.o";
static constexpr StringLiteral kDeviceFile = "device.bin";
static constexpr int64_t kFormatVersion = 1;
static constexpr StringLiteral kStagingDir = "staging";
static constexpr StringLiteral kTrashDir = "trash";
static constexpr int64_t kDefaultSizeLimit = int64_t(2) << 30;
/// Staging directories this old belong to writers that died.
static constexpr std::chrono::hours kStaleStaging{1};

std::string mlir::tile::jit::sha256Hex(StringRef data) {
  std::array<uint8_t, 32> hash = llvm::SHA256::hash(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(data.data()),
                        data.size()));
  return llvm::toHex(hash, /*LowerCase=*/true);
}

std::string
mlir::tile::jit::captureFileWrites(function_ref<void(StringRef path)> write) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return "";
  std::string data;
  std::thread reader([&] {
    char buffer[1 << 16];
    while (true) {
      ssize_t n = ::read(fds[0], buffer, sizeof(buffer));
      if (n > 0)
        data.append(buffer, n);
      else if (n == 0 || errno != EINTR)
        break;
    }
  });
  // Opening /proc/self/fd/N opens the pipe's write end again.
  write(("/proc/self/fd/" + Twine(fds[1])).str());
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  return data;
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

std::optional<int64_t> DiskCache::parseSize(StringRef text) {
  text = text.trim();
  StringRef digits = text.take_while(llvm::isDigit);
  StringRef suffix = text.drop_front(digits.size()).trim();
  uint64_t value;
  if (digits.empty() || digits.getAsInteger(10, value))
    return std::nullopt;
  if (!suffix.consume_back_insensitive("ib"))
    suffix.consume_back_insensitive("b");
  int shift = 0;
  if (suffix.size() > 1)
    return std::nullopt;
  if (!suffix.empty()) {
    size_t position = StringRef("kmgt").find(llvm::toLower(suffix.front()));
    if (position == StringRef::npos)
      return std::nullopt;
    shift = 10 * (position + 1);
  }
  if (value > (uint64_t(INT64_MAX) >> shift))
    return std::nullopt;
  return static_cast<int64_t>(value << shift);
}

int64_t DiskCache::getDefaultSizeLimit(std::string *note) {
  std::optional<std::string> env =
      llvm::sys::Process::GetEnv("TILE_CACHE_SIZE");
  if (!env || env->empty())
    return kDefaultSizeLimit;
  if (std::optional<int64_t> size = parseSize(*env))
    return *size;
  if (note)
    *note = "TILE_CACHE_SIZE='" + *env +
            "' is not a size (bytes, or a number with K, M, G or T); using " +
            std::to_string(kDefaultSizeLimit) + " bytes";
  return kDefaultSizeLimit;
}

DiskCache::DiskCache(std::string directory, int64_t sizeLimit)
    : directory(std::move(directory)), sizeLimit(sizeLimit) {}

std::string DiskCache::getEntryDirectory(StringRef key) const {
  SmallString<256> dir(directory);
  path::append(dir, key.take_front(2), key);
  return std::string(dir);
}

/// Why `path` may not be trusted (it is not this user's, or group or others
/// may write it), or nothing when it may; `directory` whether it must be one.
static std::optional<std::string> untrusted(StringRef path, bool directory) {
  struct stat status;
  if (::lstat(path.str().c_str(), &status) != 0)
    return path.str() + " cannot be read (" +
           std::error_code(errno, std::generic_category()).message() + ")";
  if (directory ? !S_ISDIR(status.st_mode) : !S_ISREG(status.st_mode))
    return path.str() + " is not a " +
           (directory ? "directory" : "regular file");
  if (status.st_uid != ::geteuid())
    return path.str() + " is owned by uid " + std::to_string(status.st_uid) +
           ", not by this user (uid " + std::to_string(::geteuid()) + ")";
  if (status.st_mode & (S_IWGRP | S_IWOTH))
    return path.str() + " is writable by " +
           ((status.st_mode & S_IWOTH) ? "others" : "its group");
  return std::nullopt;
}

LogicalResult DiskCache::checkTrusted(std::string *why) const {
  if (std::error_code ec =
          fs::create_directories(directory, /*IgnoreExisting=*/true,
                                 fs::owner_all)) {
    if (why)
      *why = "cannot create " + directory + ": " + ec.message();
    return failure();
  }
  // The directory itself, followed if it is a link (a cache elsewhere).
  SmallString<256> real;
  if (fs::real_path(directory, real))
    real = directory;
  if (std::optional<std::string> reason = untrusted(real, /*directory=*/true)) {
    if (why)
      *why = std::move(*reason);
    return failure();
  }
  return success();
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
  // Past RLIMIT_FSIZE, a write raises SIGXFSZ, which kills the process:
  // refuse such a file before writing any of it.
  struct rlimit limit;
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      data.size() > limit.rlim_cur) {
    if (error)
      *error = "cannot write " + file.str() + ": " +
               std::to_string(data.size()) +
               " bytes is over the file size limit of " +
               std::to_string(limit.rlim_cur);
    return failure();
  }
  // Readable and writable by this user only.
  int fd = -1;
  std::error_code ec = fs::openFileForWrite(file, fd, fs::CD_CreateAlways,
                                            fs::OF_None, 0600);
  llvm::raw_fd_ostream os(ec ? -1 : fd, /*shouldClose=*/!ec);
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

/// Takes the directory `dir` out of the cache with one rename into
/// `root`/trash, then deletes it: readers see the whole entry or nothing.
/// Fails when `dir` is gone already.
static LogicalResult discard(StringRef root, StringRef dir) {
  static std::atomic<unsigned> counter{0};
  SmallString<256> trash(root);
  path::append(trash, kTrashDir);
  (void)fs::create_directories(trash, /*IgnoreExisting=*/true, fs::owner_all);
  path::append(trash, path::filename(dir) + "." +
                          Twine(llvm::sys::Process::getProcessId()) + "." +
                          Twine(counter++));
  if (fs::rename(dir, trash))
    return failure();
  fs::remove_directories(trash, /*IgnoreErrors=*/true);
  return success();
}

std::optional<CacheEntry> DiskCache::load(StringRef key, std::string *why) {
  std::string dir = getEntryDirectory(key);
  if (!fs::is_directory(dir))
    return std::nullopt;
  auto reject = [&](const Twine &reason) -> std::optional<CacheEntry> {
    // An entry evicted while it was read is a plain miss.
    if (!fs::is_directory(dir))
      return std::nullopt;
    if (why)
      *why = reason.str();
    // A bad entry is removed so that the rebuild can publish a good one.
    (void)discard(directory, dir);
    return std::nullopt;
  };
  // Code from an entry runs in this process: it must be this user's alone,
  // as the cache directory is (checkTrusted).
  if (std::optional<std::string> reason = untrusted(dir, /*directory=*/true))
    return reject(*reason);
  SmallString<256> metaPath(dir);
  path::append(metaPath, kMetaFile);
  if (!fs::exists(metaPath))
    return reject("meta.json is missing");
  if (std::optional<std::string> reason = untrusted(metaPath, false))
    return reject(*reason);
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
    if (!fs::exists(file))
      return reject(Twine(name) + " is missing");
    if (std::optional<std::string> reason = untrusted(file, false))
      return reject(*reason);
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
  // The directory's time is the entry's last use (eviction goes by it); a
  // cache we cannot write keeps the old time.
  (void)::utimensat(AT_FDCWD, dir.c_str(), nullptr, 0);
  return entry;
}

LogicalResult DiskCache::store(StringRef key, const CacheEntry &entry,
                               std::string *error) {
  std::string finalDir = getEntryDirectory(key);
  if (fs::is_directory(finalDir))
    return success();
  // Nothing larger than the whole cap is kept (1 KiB for meta.json), nor
  // an entry without a host object (it could not load).
  if (entry.hostObject.empty() ||
      static_cast<int64_t>(entry.hostObject.size() +
                           entry.deviceBinary.size()) + 1024 > sizeLimit)
    return success();
  // Stage beside the final location (same file system, so rename is
  // atomic), under a name no other writer uses.
  static std::atomic<unsigned> counter{0};
  SmallString<256> staging(directory);
  path::append(staging, kStagingDir,
               key + "." + Twine(llvm::sys::Process::getProcessId()) + "." +
                   Twine(counter++));
  if (std::error_code ec = fs::create_directories(
          staging, /*IgnoreExisting=*/true, fs::owner_all)) {
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
  if (std::error_code ec = fs::create_directories(
          path::parent_path(finalDir), /*IgnoreExisting=*/true,
          fs::owner_all)) {
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
  evict(sizeLimit, key);
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

/// Bytes of the files directly in `dir`.
static int64_t getDirectoryBytes(StringRef dir) {
  int64_t bytes = 0;
  std::error_code ec;
  for (fs::directory_iterator file(dir, ec), end; !ec && file != end;
       file.increment(ec)) {
    uint64_t size = 0;
    if (!fs::file_size(file->path(), size))
      bytes += size;
  }
  return bytes;
}

DiskCache::Info DiskCache::getInfo() const {
  Info info;
  info.limit = sizeLimit;
  forEachEntry(directory, [&](StringRef dir) {
    ++info.entries;
    info.bytes += getDirectoryBytes(dir);
  });
  return info;
}

int64_t DiskCache::evict(int64_t limit, StringRef keep) {
  auto now = std::chrono::system_clock::now();
  // Writers that died left their staging directories; trash/ holds what a
  // process died deleting.
  SmallString<256> staging(directory), trash(directory);
  path::append(staging, kStagingDir);
  path::append(trash, kTrashDir);
  std::error_code ec;
  for (fs::directory_iterator it(staging, ec), end; !ec && it != end;
       it.increment(ec)) {
    fs::file_status status;
    if (!fs::status(it->path(), status) &&
        now - status.getLastModificationTime() > kStaleStaging)
      fs::remove_directories(it->path(), /*IgnoreErrors=*/true);
  }
  for (fs::directory_iterator it(trash, ec), end; !ec && it != end;
       it.increment(ec))
    fs::remove_directories(it->path(), /*IgnoreErrors=*/true);

  struct Entry {
    std::string dir;
    int64_t bytes;
    llvm::sys::TimePoint<> used;
  };
  std::vector<Entry> entries;
  int64_t total = 0;
  std::string kept = keep.empty() ? "" : getEntryDirectory(keep);
  forEachEntry(directory, [&](StringRef dir) {
    fs::file_status status;
    if (fs::status(dir, status))
      return;
    entries.push_back({dir.str(), getDirectoryBytes(dir),
                       status.getLastModificationTime()});
    total += entries.back().bytes;
  });
  if (total <= limit)
    return 0;
  llvm::sort(entries, [](const Entry &a, const Entry &b) {
    return std::tie(a.used, a.dir) < std::tie(b.used, b.dir);
  });
  int64_t evicted = 0;
  for (const Entry &entry : entries) {
    if (total <= limit)
      break;
    if (entry.dir == kept)
      continue;
    // Gone already (another process evicted it) counts as gone.
    if (succeeded(discard(directory, entry.dir)))
      ++evicted;
    total -= entry.bytes;
  }
  return evicted;
}

int64_t DiskCache::clear() {
  int64_t removed = 0;
  SmallVector<std::string> dirs;
  forEachEntry(directory, [&](StringRef dir) { dirs.push_back(dir.str()); });
  for (const std::string &dir : dirs)
    if (succeeded(discard(directory, dir)))
      ++removed;
  for (StringRef name : {kStagingDir, kTrashDir}) {
    SmallString<256> dir(directory);
    path::append(dir, name);
    fs::remove_directories(dir, /*IgnoreErrors=*/true);
  }
  return removed;
}
