//===- Passes.td - tile conversion passes ------------------*- tablegen -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_PASSES_TD
#define TILE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToCPU : Pass<"convert-tile-to-cpu", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels to loops on the host CPU";
  let description = [{
    Rewrites every `tile.kernel` into one loop over its grid's blocks (block
    ids rasterized as the kernel says), with the block's threads implicit:
    `tile.fragment` and `tile.alloc_shared` become `memref.alloca`s made
    once per worker before that loop and reused by each block it runs
    (layouts do not matter on the CPU; shared memrefs lose their memory
    space), so the stack a kernel takes does not grow with its grid. Every
    tile op becomes an `scf` loop nest with the GPU path's boundary
    semantics: a read outside a global tensor gives the pad value (0 unless
    given), a write outside it is dropped. `tile.pipelined` becomes a plain
    `scf.for`; `tile.atomic_add` uses `memref.atomic_rmw`; `tile.print` calls
    the C library's `printf` (`llvm.call`, then `fflush(NULL)`), once per
    thread of the block where every thread prints on a GPU. Leaves no tile
    op behind.

    With `openmp`, the loop over blocks is an OpenMP worksharing loop
    (`omp.wsloop`, dynamic schedule, one block at a time) inside an
    `omp.parallel` of `tileCpuThreadCount()` threads (a function the module
    declares and the JIT provides), each thread with its own buffers;
    otherwise an `scf.for` runs the blocks in order.

    A kernel that reads thread indices (`tile.thread_id`) needs `openmp`:
    an `scf.for` runs its blocks in order, each block's threads an
    `omp.parallel` team of the kernel's thread count. Its code outside tile
    ops runs in every thread of the team (a thread index is
    `omp_get_thread_num()`; lanes and warps count 32-wide warps), each tile
    op (and each print of a buffer by one thread) in an `omp.masked` region
    between two `omp.barrier`s, and `tile.barrier` is an `omp.barrier`. In
    other kernels `tile.barrier` has nothing to order and is dropped.
  }];
  let options = [
    Option<"openmp", "openmp", "bool", /*default=*/"false",
           "run the grid's blocks on OpenMP threads">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::omp::OpenMPDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu"> {
  let summary = "lower tile kernels to gpu.launch with per-thread code";
  let description = [{
    Expects every fragment and tile.parallel to have a layout
    (tile-infer-layouts) and the module a GPU target (`tile.target`, see
    tile-attach-target), whose features choose the strategies, among which
    the options below choose. Rewrites every `tile.kernel` into a `gpu.launch`
    of `threads` threads whose code each thread runs:
    - fragments become per-thread arrays indexed by static slot numbers
      (promoted to registers by LLVM); shared buffers become views into one
      dynamic shared-memory block, addressed through their layouts
      (swizzles included); the launch requests the block's size;
    - copies move the elements each thread's slots hold (or, between
      memories, elements dealt round-robin), with bounds checks where the
      tile may leave the tensor; writes to shared memory are fenced by
      barriers;
    - gemms follow their GemmPlan: `nvgpu.mma.sync` per warp or wgmma per
      warpgroup on NVIDIA tensor cores, `amdgpu.mfma` per wave on CDNA,
      fused multiply-adds otherwise;
    - reductions combine in registers, then by warp shuffles, then through
      shared memory; tile.parallel bodies are unrolled over the thread's
      slots; pipelined loops become `scf.for`;
    - a `persistent` kernel launches min(tiles, multiprocessors)
      blocks (the host asks the runtime's `tileGpuMultiprocessorCount`),
      each walking the grid's tiles in a loop.
  }];
  let options = [
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"true",
           "A TMA pipeline's copies issued by a producer warpgroup of their "
           "own (where the target has tma and warpgroups: sm_90a)">,
    Option<"tmaStore", "tma-store", "bool", /*default=*/"true",
           "A persistent kernel's fragment stores to global tensors as TMA "
           "bulk tensor stores (where the target has tma)">,
    Option<"tmaMulticast", "tma-multicast", "bool", /*default=*/"false",
           "Blocks paired in clusters of 2 share their tiles by TMA "
           "multicast (with warp specialization)">,
    Option<"deepenPipelines", "deepen-pipelines", "bool", /*default=*/"true",
           "Pipelines of asynchronous copies written with fewer than 4 "
           "stages get up to 4 where that costs no occupancy (NVIDIA)">,
  ];
  let dependentDialects = ["::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def ExpandFloat8 : Pass<"tile-expand-float8"> {
  let summary = "expand f8E4M3FN / f8E5M2 / f8E4M3FNUZ / f8E5M2FNUZ "
                "conversions into integer arithmetic";
  let description = [{
    LLVM has no 8-bit float types: the LLVM type converter carries f8 values
    as i8, and `arith.extf` / `arith.truncf` from or to them have no lowering.
    This pass rewrites them (and f8 `arith.constant`s) into integer
    arithmetic on the bits, the same on every target: extension is exact;
    truncation rounds to nearest even, and a value too large for the type
    becomes infinity in f8E5M2 and NaN in f8E4M3FN, f8E4M3FNUZ and
    f8E5M2FNUZ (as APFloat and arith's folders convert). The FNUZ types
    (AMD CDNA3's fp8, exponent bias 8 / 16) have a single NaN, 0x80, and no
    negative zero: a negative value that rounds to zero becomes +0. Run it
    after `arith-emulate-unsupported-floats`, which turns arithmetic on f8
    values into f32 arithmetic between conversions, and before
    `convert-arith-to-llvm`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def RaisePtxVersion
    : Pass<"tile-raise-ptx-version", "::mlir::gpu::GPUModuleOp"> {
  let summary = "raise a kernel module's PTX ISA version to what its "
                "instructions need";
  let description = [{
    Runs after gpu-nvvm-attach-target. The GPU lowering marks inline PTX
    that a newer PTX ISA than the default (+ptx80) introduced with
    `tile.ptx_version = NN` (`red.global.add.v2/v4.f32`, PTX 8.1); this
    pass gives a module with such ops an NVVM target whose features ask
    for at least the largest such version (`+ptxNN`, replacing a smaller
    one), and drops the marks. Modules without them keep their features,
    so kernels that need nothing newer assemble with older toolkits.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect"];
}

def ExternDynamicSharedMemory
    : Pass<"tile-extern-dynamic-shared", "::mlir::gpu::GPUModuleOp"> {
  let summary = "give the dynamic shared-memory symbol external linkage";
  let description = [{
    Runs after convert-gpu-to-nvvm. Upstream lowers `gpu.dynamic_shared_memory`
    to an internal zero-length workgroup global, which the NVPTX backend
    demotes to a one-byte static `.shared` variable instead of the dynamic
    block (`.extern .shared ... []`). Where a kernel also has static shared
    memory (the mbarriers of a TMA pipeline), ptxas places that byte before
    the other statics, and buffers addressed from it overlap them. External
    linkage makes it the dynamic block, which follows every static variable,
    as CUDA C++ declares `extern __shared__ char smem[];`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertMathToNVVMIntrinsics
    : Pass<"tile-math-to-nvvm-intrinsics", "::mlir::gpu::GPUModuleOp"> {
  let summary = "f32 math whose fast forms the NVIDIA path emits itself";
  let description = [{
    Runs before convert-gpu-to-nvvm, which lowers f32 `math.exp2` to
    libdevice's `__nv_exp2f` (`ex2.approx.f32`, which ptxas expands to keep
    subnormal results). Where the op allows approximate functions
    (`fastmath<afn>`) it becomes `llvm.nvvm.ex2.approx.ftz.f32`: one
    MUFU.EX2, results below 2^-126 flushed to zero. Other math is left to
    upstream's lowering (`math.exp` with `afn` is already `__nv_fast_expf`
    there).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ConvertInt8ToFloatByBits
    : Pass<"tile-int8-to-float-by-bits", "::mlir::gpu::GPUModuleOp"> {
  let summary = "convert i8 to f16 and f32 by building the float's bits";
  let description = [{
    `arith.sitofp` and `arith.uitofp` from i8 to f16 or f32 (scalars and
    vectors) become integer operations and one subtraction: the byte (its
    sign bit flipped when signed) is the low mantissa bits of 1024.0 (f16,
    0x6400) or 2^23 (f32, 0x4B000000), and subtracting that float's value
    (plus 128 when signed) leaves the integer, exactly. NVIDIA's
    integer-to-float instruction runs at a quarter of the arithmetic rate and
    converts one element; the bit operations take 2 or 4 elements per 32-bit
    register (`prmt`, `lop3`) and the subtraction two f16 at once. This is
    how weights dequantized in a kernel's loop are converted (FasterTransformer,
    TileLang and LADDER convert the same way). Wider integers (i16, i32)
    whose values the integer range analysis bounds to the mantissa (a nibble
    unpacked with shifts and masks, minus its zero point) convert the same
    way, one element per word: x plus the bits of 1024 + 512 (f16, signed)
    as a float, minus that float; and where they are bytes widened, minus a
    constant of at most 128 (a zero point), by words as the bytes
    themselves, minus base + the constant. 4-bit values unpacked from a
    vector of bytes, `(ext(shuffle(bytes)) >> s) & 15` with each shift 0 or
    4 (two weights a byte), become words of nibbles first: per word of
    bytes its low nibbles and its high ones (`and`, `shr`), and one `prmt`
    per four weights interleaving them as the shuffle orders them. Two's
    complement nibbles unpacked as TileLang's w4a8 example does (moved to
    a byte's top, read as i8 and shifted right arithmetically by 4) are
    first rewritten to unsigned ones: `((ext(bytes) >> s) & 15 ^ 8) - 8`,
    whose `^ 8` the words of nibbles take and whose `- 8` the subtracted
    float does. Bit logic on widened bytes that ends truncated to 16 bits
    (`and`, `or`, `xor` with constants or each other, `shl` by constants:
    an fp4 e2m1 weight's bits placed in a half's, `((q & 8) << 12) |
    ((q & 7) << 9)`) runs two 16-bit lanes a 32-bit word: a `prmt` spreads
    each pair of bytes into a word's halves, constants hold their value in
    both, and a shift that could carry from the low half into the high one
    is masked after. Runs before arith-to-llvm.
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def CheckNVVMToolkit
    : Pass<"tile-check-nvvm-toolkit", "::mlir::gpu::GPUModuleOp"> {
  let summary = "refuse kernels that need a part of the CUDA toolkit that "
                "was not found";
  let description = [{
    Runs after convert-gpu-to-nvvm, which lowers math ops (`math.exp`,
    `math.sin`, `math.tanh`, ...) to calls into CUDA's libdevice
    (`__nv_expf`, ...), and before gpu-module-to-binary. That pass links
    libdevice from the CUDA toolkit when the toolkit has it, and otherwise
    leaves the calls unresolved: PTX that declares `.extern .func __nv_expf`
    and cannot load on a GPU. When `libdevice` is empty (none was found), a
    call to a `__nv_*` function is an error at the call, naming the
    function. When `ptxas` is empty (none was found) and `format` needs it
    (`bin`, `fatbin`), each kernel module is an error at the kernel.
  }];
  let options = [
    Option<"libdevice", "libdevice", "std::string", /*default=*/"",
           "libdevice.10.bc that gpu-module-to-binary links, or empty when "
           "none was found">,
    Option<"ptxas", "ptxas", "std::string", /*default=*/"",
           "the ptxas gpu-module-to-binary runs, or empty when none was "
           "found">,
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "the device binary format: isa (PTX), bin or fatbin">,
  ];
}

def ConvertMathToROCDLIntrinsics
    : Pass<"tile-math-to-rocdl-intrinsics", "::mlir::gpu::GPUModuleOp"> {
  let summary = "f32 math the AMD path computes without ROCm's device library";
  let description = [{
    Runs before convert-gpu-to-rocdl, which lowers several math ops to calls
    into ROCm's device library (`__ocml_*`), a library Debian does not ship
    for current chips. For f32: `math.exp2` becomes `rocdl.exp2` (the
    hardware's v_exp_f32) and `math.rsqrt` a division of 1 by `math.sqrt`;
    `math.exp`, `math.log` and `math.sqrt` already lower to LLVM intrinsics
    the AMDGPU backend expands.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::ROCDL::ROCDLDialect"];
}

def CheckROCDLLibraryCalls
    : Pass<"tile-check-rocdl-library-calls", "::mlir::gpu::GPUModuleOp"> {
  let summary = "refuse kernels that would call ROCm's device library";
  let description = [{
    Runs after convert-gpu-to-rocdl. A kernel that still calls an `__ocml_*`
    or `__ockl_*` function (a math op on the AMD path other than those
    tile-math-to-rocdl-intrinsics handles) would link into a code object
    with an undefined symbol; this pass makes it an error naming the
    function instead. The hostcall printf that `tile.print` lowers to
    (`__ockl_printf_*`) is let through with `device-library`, which the
    tile-to-rocdl pipeline sets when the ROCm toolkit it found has the
    device library (`amdgcn/bitcode`), which gpu-module-to-binary links.
  }];
  let options = [
    Option<"deviceLibrary", "device-library", "bool", /*default=*/"false",
           "ROCm's device library is linked: allow its hostcall printf">,
  ];
}

def CheckROCDLInlineAsm
    : Pass<"tile-check-rocdl-inline-asm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "refuse inline assembly the AMDGPU backend cannot take";
  let description = [{
    Runs before the AMD path translates a gpu.module to LLVM IR. An
    `llvm.inline_asm` whose operand constraints the AMDGPU backend does not
    know (NVPTX's `l`, `f`, `h`, `d` ... from a kernel written for NVIDIA),
    a memory operand (`m`, which the backend cannot match), or an immediate
    constraint (`i`, `n`) on a value that is no constant would stop LLVM's
    code generation outside any diagnostic handler, ending the process.
    This pass makes each an error at the op, naming the constraint.
    Accepted: the register classes `v`, `s`, `a` and `r`, explicit
    registers (`{v0}`), tied operands (digits), `X`, the immediates `i`,
    `n`, `I`, `J`, `A`, `B`, `C`, `DA`, `DB` on constants, and clobbers.
  }];
}

#endif // TILE_CONVERSION_PASSES_TD
