//===- CheckInlineAsm.cpp - inline assembly the AMD path can take ---------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-check-rocdl-inline-asm: LLVM's AMDGPU backend reports an operand
// constraint it does not know through the LLVMContext, which the
// serialization to a code object creates without a diagnostic handler (the
// process exits), and aborts on memory operands. This pass checks each
// llvm.inline_asm's constraints before that, with an error at the op.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CHECKROCDLINLINEASM
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// How AMDGPU takes one constraint code (the letters after its modifiers).
enum class CodeKind { Register, Immediate, Unknown };

static CodeKind classify(StringRef code) {
  if (code.starts_with("{") && code.ends_with("}"))
    return CodeKind::Register; // an explicit register, {v0} or {s[0:1]}
  if (!code.empty() && llvm::all_of(code, llvm::isDigit))
    return CodeKind::Register; // tied to the output of that number
  return llvm::StringSwitch<CodeKind>(code)
      .Cases({"v", "s", "a", "r", "X"}, CodeKind::Register)
      .Cases({"i", "n", "I", "J", "A", "B", "C", "DA", "DB"},
             CodeKind::Immediate)
      .Default(CodeKind::Unknown);
}

struct CheckROCDLInlineAsm
    : tile::impl::CheckROCDLInlineAsmBase<CheckROCDLInlineAsm> {
  void runOnOperation() override {
    getOperation().walk([&](LLVM::InlineAsmOp op) {
      if (failed(check(op)))
        signalPassFailure();
    });
  }

  /// Checks `op`'s constraints, one a comma-separated entry: outputs (`=`)
  /// first, then inputs in operand order, then clobbers (`~`).
  static LogicalResult check(LLVM::InlineAsmOp op) {
    SmallVector<StringRef> entries;
    StringRef(op.getConstraints()).split(entries, ',');
    unsigned input = 0;
    for (StringRef entry : entries) {
      entry = entry.trim();
      if (entry.empty() || entry.starts_with("~"))
        continue; // no operands, or a clobber
      bool isOutput = entry.starts_with("=");
      StringRef codes = entry.ltrim("=+&%*!");
      std::optional<Value> operand;
      if (!isOutput && input < op.getOperands().size())
        operand = op.getOperands()[input++];
      // Alternatives ('|') must each be known.
      SmallVector<StringRef> alternatives;
      codes.split(alternatives, '|');
      for (StringRef code : alternatives) {
        switch (classify(code)) {
        case CodeKind::Register:
          break;
        case CodeKind::Immediate:
          if (operand && !matchPattern(*operand, m_Constant()))
            return op.emitError()
                   << "inline asm constraint '" << code
                   << "' asks for an immediate, but the operand is no "
                      "constant";
          break;
        case CodeKind::Unknown:
          return op.emitError()
                 << "inline asm constraint '" << code
                 << "' is not one the AMDGPU backend takes (registers: v, s, "
                    "a, r; immediates: i, n, I, J, A, B, C, DA, DB; no "
                    "memory operands): assembly written for another target?";
        }
      }
    }
    return success();
  }
};

} // namespace
