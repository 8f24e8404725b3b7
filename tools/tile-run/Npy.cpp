//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "llvm/Support/MathExtras.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tile::run;

static constexpr StringLiteral kMagic = "\x93NUMPY";

/// Finds `'key':` in the header dict and returns the text after it.
static std::optional<StringRef> findKey(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  return rest.ltrim();
}

FailureOr<NpyArray> mlir::tile::run::readNpy(StringRef path,
                                             std::string &error) {
  auto fail = [&](const Twine &message) -> FailureOr<NpyArray> {
    error = (path + ": " + message).str();
    return failure();
  };
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot read: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  if (!bytes.starts_with(kMagic) || bytes.size() < 10)
    return fail("not a .npy file");
  uint8_t major = bytes[6];
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = uint8_t(bytes[8]) | (uint8_t(bytes[9]) << 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLength = uint32_t(uint8_t(bytes[8])) |
                   (uint32_t(uint8_t(bytes[9])) << 8) |
                   (uint32_t(uint8_t(bytes[10])) << 16) |
                   (uint32_t(uint8_t(bytes[11])) << 24);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + Twine(major));
  }
  if (bytes.size() < headerStart + headerLength)
    return fail("truncated header");
  StringRef header = bytes.substr(headerStart, headerLength);

  NpyArray array;
  std::optional<StringRef> descr = findKey(header, "descr");
  if (!descr || !descr->consume_front("'"))
    return fail("header has no 'descr'");
  StringRef dtype = descr->take_until([](char c) { return c == '\''; });
  if (dtype.size() < 2)
    return fail("bad dtype '" + dtype + "'");
  char order = dtype.front();
  if (order == '>')
    return fail("big-endian data is not supported");
  if (order == '<' || order == '|' || order == '=')
    dtype = dtype.drop_front();
  array.dtype = dtype.str();

  std::optional<StringRef> fortran = findKey(header, "fortran_order");
  if (fortran && fortran->starts_with("True"))
    return fail("Fortran-order arrays are not supported; save with "
                "np.ascontiguousarray");
  std::optional<StringRef> shape = findKey(header, "shape");
  if (!shape || !shape->consume_front("("))
    return fail("header has no 'shape'");
  StringRef dims = shape->take_until([](char c) { return c == ')'; });
  SmallVector<StringRef> parts;
  dims.split(parts, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  int64_t elements = 1;
  for (StringRef part : parts) {
    int64_t size;
    if (part.trim().getAsInteger(10, size) || size < 0)
      return fail("bad shape '(" + dims + ")'");
    array.shape.push_back(size);
    if (llvm::MulOverflow(elements, size, elements))
      return fail("shape (" + dims + ") has too many elements");
  }
  int64_t itemSize;
  if (StringRef(array.dtype).drop_front().getAsInteger(10, itemSize) ||
      itemSize <= 0)
    return fail("bad dtype '" + array.dtype + "'");
  StringRef data = bytes.drop_front(headerStart + headerLength);
  int64_t expected;
  if (llvm::MulOverflow(elements, itemSize, expected))
    return fail("shape (" + dims + ") has too many bytes");
  if (static_cast<int64_t>(data.size()) != expected)
    return fail("holds " + Twine(data.size()) + " bytes of data, expected " +
                Twine(elements * itemSize) + " for shape (" + dims + ")");
  array.data = data.str();
  return array;
}

LogicalResult mlir::tile::run::writeNpy(StringRef path, const NpyArray &array,
                                        std::string &error) {
  std::string header = "{'descr': '";
  header += array.dtype.front() == 'b' ? "|" : "<";
  header += array.dtype + "', 'fortran_order': False, 'shape': (";
  for (int64_t size : array.shape)
    header += std::to_string(size) + ", ";
  if (array.shape.size() > 1)
    header.erase(header.size() - 2);
  else if (array.shape.size() == 1)
    header.erase(header.size() - 1);
  header += "), }";
  // The data starts at a multiple of 64 bytes; the header ends in '\n'.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    error = (path + ": cannot write: " + ec.message()).str();
    return failure();
  }
  os << kMagic << '\x01' << '\x00' << char(header.size() & 0xff)
     << char(header.size() >> 8) << header << array.data;
  return success();
}
