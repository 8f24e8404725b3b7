//===- FuzzMain.cpp - Run a fuzz target without libFuzzer -----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The main of the fuzz targets in an ordinary build: runs each file given
// (directories: every file in them, sorted) through the target once, so
// that lit replays seeds and findings without libFuzzer. Inputs are split at
// "// -----" lines as tile-opt --split-input-file does.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (!llvm::sys::fs::is_directory(argv[i])) {
      files.push_back(argv[i]);
      continue;
    }
    std::vector<std::string> found;
    for (llvm::sys::fs::recursive_directory_iterator it(argv[i], ec), end;
         !ec && it != end; it.increment(ec))
      if (llvm::sys::fs::is_regular_file(it->path()))
        found.push_back(it->path());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  int inputs = 0;
  for (const std::string &file : files) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      llvm::errs() << "cannot read " << file << "\n";
      return 2;
    }
    llvm::SmallVector<llvm::StringRef> chunks;
    (*buffer)->getBuffer().split(chunks, "// -----");
    for (llvm::StringRef chunk : chunks) {
      LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(chunk.data()),
                             chunk.size());
      ++inputs;
    }
  }
  llvm::outs() << "ran " << inputs << " inputs from " << files.size()
               << " files\n";
  return 0;
}
