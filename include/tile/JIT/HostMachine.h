//===- HostMachine.h - The CPU the JIT compiles host code for ---*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The host code of every target (the whole kernel on the CPU, the launches
// on GPUs) is compiled for one CPU: the host's own by default, or a named
// one (`CompileOptions::cpu`, else $TILE_CPU), e.g. `x86-64` for code that
// runs on any x86-64. Where that CPU lacks an instruction (f16 or bf16
// conversions without F16C or AVX512-FP16, 128-bit division), LLVM calls a
// compiler-runtime builtin: tile links compiler-rt's builtins and hands
// their addresses to every JIT it makes, so such code links in any process
// (tile-run, a Python extension loaded RTLD_LOCAL, a C API user), whatever
// the process itself exports.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_HOSTMACHINE_H
#define TILE_JIT_HOSTMACHINE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::tile::jit {

/// The CPU host code is compiled for: `cpu` if not empty, else $TILE_CPU if
/// set and not empty, else "host" (this machine's CPU and features).
std::string resolveHostCpu(llvm::StringRef cpu);

/// A target machine builder for `cpu` ("host" or an LLVM CPU name of this
/// machine's architecture, e.g. "x86-64", "x86-64-v3", "skylake-avx512");
/// an error names an unknown CPU.
llvm::Expected<llvm::orc::JITTargetMachineBuilder>
getHostMachineBuilder(llvm::StringRef cpu);

/// "<triple> <cpu> <features>" of a builder: what a cached host object
/// depends on.
std::string describeHostMachine(const llvm::orc::JITTargetMachineBuilder &builder);

/// The compiler-runtime builtins generated host code may call, by name, with
/// their addresses in this process; and `tileCpuThreadCount`, which CPU
/// kernels lowered with OpenMP call for their number of threads.
const std::vector<std::pair<std::string, void *>> &getHostBuiltins();

/// The OpenMP runtime (LLVM's libomp) CPU kernels run their blocks on:
/// its path, opened once per process, or empty when it cannot be loaded
/// (then CPU kernels run their blocks in one loop, on one core).
const std::string &getOpenMPRuntime();

/// The threads a CPU kernel runs its blocks on: the last count set here (0
/// resets), else $TILE_CPU_THREADS, else OpenMP's default (the cores this
/// process may use, or $OMP_NUM_THREADS).
void setCpuThreadCount(int threads);
int getCpuThreadCount();

} // namespace mlir::tile::jit

#endif // TILE_JIT_HOSTMACHINE_H
