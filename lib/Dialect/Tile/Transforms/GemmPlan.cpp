//===- GemmPlan.cpp - How a tile.gemm maps onto instructions --------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/GemmPlan.h"

#include "tile/Layout/FragmentLayouts.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::tile;

std::string GemmPlan::describe() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  switch (instruction) {
  case GemmInstruction::Wgmma:
    os << "wgmma m" << atomM << "n" << atomN << "k" << atomK << " (A from "
       << (aFromShared ? "shared memory" : "registers") << "), " << warpsM
       << "x" << warpsN << " warpgroups, " << repeatsM << "x" << repeatsN
       << "x" << repeatsK << " repeats per warpgroup";
    return s;
  case GemmInstruction::MmaSync:
    os << "mma.sync m" << atomM << "n" << atomN << "k" << atomK;
    break;
  case GemmInstruction::Mfma:
    os << "mfma " << atomM << "x" << atomN << "x" << atomK;
    break;
  case GemmInstruction::Fma:
    os << "FMA, " << warpsM << "x" << warpsN << " threads, " << repeatsM
       << "x" << repeatsN << " elements per thread";
    return s;
  }
  os << ", " << warpsM << "x" << warpsN << " warps, " << repeatsM << "x"
     << repeatsN << "x" << repeatsK << " repeats per warp";
  return s;
}

/// The grid of `units` (warps or warpgroups) that full_row (`rows`) or
/// full_col prefers among those `fits` accepts: as many units along M (N)
/// as fit, the rest along the other dim, as TileLang does when a tile is
/// too small to stack them all.
static std::optional<std::pair<int64_t, int64_t>>
chooseFullGrid(bool rows, int64_t units,
               function_ref<bool(int64_t, int64_t)> fits) {
  for (int64_t along = units; along >= 1; --along) {
    if (units % along != 0)
      continue;
    int64_t gm = rows ? along : units / along, gn = units / gm;
    if (fits(gm, gn))
      return std::make_pair(gm, gn);
  }
  return std::nullopt;
}

/// Divides `warps` into a warps-M x warps-N grid whose per-warp share of
/// the M x N tile is a whole number of atomM x atomN instructions.
static std::optional<std::pair<int64_t, int64_t>>
chooseWarpGrid(WarpPolicy policy, int64_t m, int64_t n, int64_t warps,
               int64_t atomM, int64_t atomN) {
  auto fits = [&](int64_t wm, int64_t wn) {
    return m % (wm * atomM) == 0 && n % (wn * atomN) == 0;
  };
  switch (policy) {
  case WarpPolicy::FullRow:
  case WarpPolicy::FullCol:
    return chooseFullGrid(policy == WarpPolicy::FullRow, warps, fits);
  case WarpPolicy::Square: {
    // The grid whose per-warp tiles are closest to square.
    std::optional<std::pair<int64_t, int64_t>> best;
    int64_t bestScore = 0;
    for (int64_t wm = 1; wm <= warps; ++wm) {
      if (warps % wm != 0 || !fits(wm, warps / wm))
        continue;
      int64_t score = std::abs(m / wm - n / (warps / wm));
      if (!best || score < bestScore) {
        best = std::make_pair(wm, warps / wm);
        bestScore = score;
      }
    }
    return best;
  }
  }
  return std::nullopt;
}

/// Transposes a 2-d fragment layout (logical dims 0 and 1).
static Layout transposed(const Layout &fragment) {
  return fragment.permuteInput({1, 0, 2});
}

/// The FMA plan: threads form a tm x tn grid over C, each owning a block
/// of (M / tm) x (N / tn) elements; A rows and B columns are replicated
/// over the threads that need them.
static FailureOr<GemmPlan> planFma(GemmOp op, int64_t threads) {
  int64_t m = op.getM(), n = op.getN(), k = op.getK();
  int64_t bestTm = 0, bestTn = 0;
  for (int64_t tm = 1; tm <= std::min(m, threads); ++tm) {
    if (m % tm != 0)
      continue;
    int64_t tn = std::min(n, threads / tm);
    while (n % tn != 0)
      --tn;
    bool better = tm * tn > bestTm * bestTn ||
                  (tm * tn == bestTm * bestTn &&
                   std::abs(m / tm - n / tn) <
                       std::abs(m / bestTm - n / bestTn));
    if (better) {
      bestTm = tm;
      bestTn = tn;
    }
  }
  int64_t tm = bestTm, tn = bestTn, rm = m / tm, rn = n / tn;
  GemmPlan plan;
  plan.instruction = GemmInstruction::Fma;
  plan.warpsM = tm;
  plan.warpsN = tn;
  plan.repeatsM = rm;
  plan.repeatsN = rn;
  plan.repeatsK = k;
  using F = LayoutFactor;
  plan.c = makeFragment({{F{tm, kThreadAxis, tn}, F{rm, kSlotAxis, rn}},
                         {F{tn, kThreadAxis, 1}, F{rn, kSlotAxis, 1}}});
  Layout a = makeFragment({{F{tm, kThreadAxis, tn}, F{rm, kSlotAxis, k}},
                           {F{k, kSlotAxis, 1}}},
                          {F{tn, kThreadAxis, 1}});
  Layout b = makeFragment({{F{k, kSlotAxis, rn}},
                           {F{tn, kThreadAxis, 1}, F{rn, kSlotAxis, 1}}},
                          {F{tm, kThreadAxis, tn}});
  plan.a = op.getTransposeA() ? transposed(a) : a;
  plan.b = op.getTransposeB() ? transposed(b) : b;
  return plan;
}

/// The k of wgmma for element types `a`, `b` into an accumulator of `c`,
/// or 0 if wgmma cannot multiply them: f16, bf16, tf32 (f32) and fp8 into
/// f32, f16 also into f16. Its fp8 is OCP's (e4m3, e5m2), not the FNUZ
/// variants.
static int64_t getWgmmaK(Type a, Type b, Type c) {
  auto isF8 = [](Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); };
  if (c.isF16())
    return a.isF16() && b.isF16() ? 16 : 0;
  if (!c.isF32())
    return 0;
  if (a == b && (a.isF16() || a.isBF16()))
    return 16;
  if (a == b && a.isF32())
    return 8;
  if (isF8(a) && isF8(b))
    return 32;
  return 0;
}

/// Whether a shared gemm operand can be read by wgmma descriptors: its
/// layout is (or will be, when unannotated) a 32/64/128-byte swizzle.
static bool isWgmmaReadable(Value operand, const TargetInfo &target) {
  auto alloc = operand.getDefiningOp<AllocSharedOp>();
  if (!alloc)
    return false;
  LayoutAttrInterface layout = alloc.getLayoutAttr();
  if (!layout)
    layout = getPreferredOperandLayout(alloc.getType(), target);
  return isa_and_nonnull<SwizzleLayoutAttr>(layout);
}

/// The 16-byte chunks of a swizzle panel of `operand` (its innermost dim
/// split into panels of the swizzle's width), in elements.
static int64_t getPanelElements(Value operand, const TargetInfo &target) {
  auto alloc = operand.getDefiningOp<AllocSharedOp>();
  LayoutAttrInterface layout = alloc.getLayoutAttr();
  if (!layout)
    layout = getPreferredOperandLayout(alloc.getType(), target);
  return cast<SwizzleLayoutAttr>(layout).getMode() /
         (alloc.getType().getElementTypeBitWidth() / 8);
}

/// Plans `op` with Hopper's warpgroup MMA when it applies: f16/bf16 (any
/// operand major-ness), tf32 and fp8 (K-major operands) into f32, f16 into
/// f16; B in
/// swizzled shared memory, A there or in registers; warpgroups tile C in
/// 64-row steps. std::nullopt when it does not apply (the caller falls back
/// to mma.sync).
static std::optional<GemmPlan> planWgmma(GemmOp op, const TargetInfo &target,
                                         int64_t threads) {
  Type a = cast<ShapedType>(op.getA().getType()).getElementType();
  Type b = cast<ShapedType>(op.getB().getType()).getElementType();
  Type c = cast<ShapedType>(op.getC().getType()).getElementType();
  int64_t k = getWgmmaK(a, b, c);
  int64_t warpgroup = target.warpgroupSize;
  if (!target.hasWgmma() || k == 0 || threads % warpgroup != 0)
    return std::nullopt;
  bool aInRegisters = isa<FragmentType>(op.getA().getType());
  if (!isWgmmaReadable(op.getB(), target) ||
      (!aInRegisters && !isWgmmaReadable(op.getA(), target)))
    return std::nullopt;
  // Only 16-bit types may be MN-major (transposed through the descriptor).
  bool aMNMajor = !aInRegisters && op.getTransposeA();
  bool bMNMajor = !op.getTransposeB();
  if (a.getIntOrFloatBitWidth() != 16 && (aMNMajor || bMNMajor))
    return std::nullopt;
  int64_t m = op.getM(), n = op.getN(), kk = op.getK();
  if (kk % k != 0)
    return std::nullopt;

  // Warpgroups: stacked along M by 64-row steps, and along N; each issues
  // instructions at most 256 columns wide.
  int64_t groups = threads / warpgroup;
  auto fits = [&](int64_t gm, int64_t gn) {
    return m % (gm * 64) == 0 && n % gn == 0 && (n / gn) % 8 == 0;
  };
  std::optional<std::pair<int64_t, int64_t>> grid;
  switch (op.getPolicy()) {
  case WarpPolicy::FullRow:
  case WarpPolicy::FullCol:
    grid = chooseFullGrid(op.getPolicy() == WarpPolicy::FullRow, groups, fits);
    break;
  case WarpPolicy::Square: {
    // The widest instructions first (up to 256 columns: each k-step reads
    // A once per instruction from shared memory, so 64x256 per warpgroup
    // reads 17% less than 128x128), then the squarest shares.
    std::pair<int64_t, int64_t> best;
    for (int64_t gm = 1; gm <= groups; ++gm) {
      int64_t gn = groups / gm;
      if (groups % gm != 0 || !fits(gm, gn))
        continue;
      std::pair<int64_t, int64_t> score{-std::min<int64_t>(n / gn, 256),
                                        std::abs(m / gm - n / gn)};
      if (!grid || score < best) {
        grid = {gm, gn};
        best = score;
      }
    }
    break;
  }
  }
  if (!grid)
    return std::nullopt;
  auto [gm, gn] = *grid;
  int64_t perGroupN = n / gn;
  int64_t instrN = perGroupN;
  while (instrN > 256 || perGroupN % instrN != 0 || instrN % 8 != 0)
    --instrN;
  // An MN-major B is addressed by whole swizzle panels along N.
  if (bMNMajor && (gn > 1 || perGroupN != instrN) &&
      instrN % getPanelElements(op.getB(), target) != 0)
    return std::nullopt;
  if (aMNMajor && 64 % getPanelElements(op.getA(), target) != 0)
    return std::nullopt;

  GemmPlan plan;
  plan.instruction = GemmInstruction::Wgmma;
  plan.atomM = 64;
  plan.atomN = instrN;
  plan.atomK = k;
  plan.warpSize = warpgroup;
  plan.warpsM = gm;
  plan.warpsN = gn;
  plan.repeatsM = m / (gm * 64);
  plan.repeatsN = perGroupN / instrN;
  plan.repeatsK = kk / k;
  plan.aFromShared = !aInRegisters;
  plan.aMNMajor = aMNMajor;
  plan.bMNMajor = bMNMajor;
  plan.c = tileAtom(getWgmmaAccumulator(instrN),
                    {{gm, gn},
                     {gn * warpgroup, warpgroup},
                     {plan.repeatsM, plan.repeatsN},
                     {}});
  // Register A (16-bit types): warpgroup rows of 64, K in steps of 16,
  // replicated over the warpgroups along N.
  AtomTiling aTiling{
      {gm, 1}, {gn * warpgroup, 0}, {plan.repeatsM, plan.repeatsK}, {}};
  if (gn > 1)
    aTiling.replicas.push_back({gn, kThreadAxis, warpgroup});
  if (aInRegisters) {
    if (a.getIntOrFloatBitWidth() != 16)
      return std::nullopt;
    plan.a = tileAtom(getWgmmaOperandA(), aTiling);
  }
  return plan;
}

/// Whether `target` multiplies fp8 A and B into an f32 C with MFMA
/// (v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8}; e4m3 is fp8, e5m2 bf8, and A
/// and B may differ). Each chip takes one fp8 family there: gfx942 (CDNA3)
/// the FNUZ types, gfx950 (CDNA4) OCP's (f8E4M3FN, f8E5M2). The other
/// family on either chip (OCP on gfx942, FNUZ on gfx950), and any fp8 on
/// gfx90a, which has no fp8 MFMA, are FMA.
static bool hasFp8Mfma(Type a, Type b, Type c, const TargetInfo &target) {
  auto isFnuz = [](Type t) {
    return isa<Float8E4M3FNUZType, Float8E5M2FNUZType>(t);
  };
  auto isOcp = [](Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); };
  if (!target.hasMfma() || !c.isF32())
    return false;
  switch (target.mfmaFp8) {
  case TargetInfo::Fp8Format::Fnuz:
    return isFnuz(a) && isFnuz(b);
  case TargetInfo::Fp8Format::Ocp:
    return isOcp(a) && isOcp(b);
  case TargetInfo::Fp8Format::None:
    return false;
  }
  return false;
}

FailureOr<GemmPlan> mlir::tile::planGemm(GemmOp op, const TargetInfo &target,
                                         int64_t threads) {
  if (std::optional<GemmPlan> wgmma = planWgmma(op, target, threads))
    return *wgmma;
  Type a = cast<ShapedType>(op.getA().getType()).getElementType();
  Type b = cast<ShapedType>(op.getB().getType()).getElementType();
  Type c = cast<ShapedType>(op.getC().getType()).getElementType();
  std::optional<MmaAtom> atom;
  GemmInstruction instruction = GemmInstruction::Fma;
  std::string name;
  if (target.hasMmaSync() && a == b) {
    if (a.isF16() || a.isBF16())
      atom = getMmaSyncAtom(16);
    else if (a.isF32())
      atom = getMmaSyncAtom(32);
    else if (a.isSignlessInteger(8))
      atom = getMmaSyncAtom(8);
    instruction = GemmInstruction::MmaSync;
    if (atom)
      name = ("mma.sync m16n8k" + Twine(atom->k)).str();
  } else if (target.hasMfma() &&
             ((a == b && (((a.isF16() || a.isBF16()) && c.isF32()) ||
                          (a.isSignlessInteger(8) &&
                           c.isSignlessInteger(32)))) ||
              hasFp8Mfma(a, b, c, target))) {
    // CDNA3 replaced the i8 16x16x16 MFMA with 16x16x32; fp8 (CDNA3's FNUZ,
    // CDNA4's OCP) runs as 16x16x32 too (eight per lane, like i8).
    bool k32 = (a.isSignlessInteger(8) && target.mfmaI8K32) ||
               hasFp8Mfma(a, b, c, target);
    atom = k32 ? getMfma16x16x32Atom() : getMfma16x16x16Atom();
    instruction = GemmInstruction::Mfma;
    name = k32 ? "mfma 16x16x32" : "mfma 16x16x16";
  }
  if (!atom)
    return planFma(op, threads);

  int64_t m = op.getM(), n = op.getN(), k = op.getK();
  int64_t lanes = atom->lanes;
  if (threads % lanes != 0)
    return op.emitOpError("needs a multiple of ")
           << lanes << " threads for " << name << ", the kernel has "
           << threads;
  if (k % atom->k != 0)
    return op.emitOpError("K = ")
           << k << " is not a multiple of " << atom->k << ", the k of "
           << name;
  int64_t warps = threads / lanes;
  auto grid =
      chooseWarpGrid(op.getPolicy(), m, n, warps, atom->m, atom->n);
  if (!grid)
    return op.emitOpError("tile ")
           << m << "x" << n << " does not divide over " << warps
           << " warps with " << name << " (policy "
           << stringifyWarpPolicy(op.getPolicy())
           << "): each warp's share needs a multiple of " << atom->m
           << " rows and " << atom->n << " columns";
  auto [wm, wn] = *grid;

  GemmPlan plan;
  plan.instruction = instruction;
  plan.atomM = atom->m;
  plan.atomN = atom->n;
  plan.atomK = atom->k;
  plan.warpSize = lanes;
  plan.warpsM = wm;
  plan.warpsN = wn;
  plan.repeatsM = m / (wm * atom->m);
  plan.repeatsN = n / (wn * atom->n);
  plan.repeatsK = k / atom->k;
  // Warp w = wr * wn + wc: warp rows are wn * lanes threads apart.
  plan.c = tileAtom(atom->c, {{wm, wn},
                              {wn * lanes, lanes},
                              {plan.repeatsM, plan.repeatsN},
                              {}});
  AtomTiling aTiling{{wm, 1}, {wn * lanes, 0}, {plan.repeatsM, plan.repeatsK},
                     {}};
  if (wn > 1)
    aTiling.replicas.push_back({wn, kThreadAxis, lanes});
  AtomTiling bTiling{{1, wn}, {0, lanes}, {plan.repeatsK, plan.repeatsN}, {}};
  if (wm > 1)
    bTiling.replicas.push_back({wm, kThreadAxis, wn * lanes});
  Layout aLayout = tileAtom(atom->a, aTiling);
  Layout bLayout = tileAtom(atom->b, bTiling);
  plan.a = op.getTransposeA() ? transposed(aLayout) : aLayout;
  plan.b = op.getTransposeB() ? transposed(bLayout) : bLayout;
  return plan;
}

LayoutAttrInterface
mlir::tile::getPreferredOperandLayout(MemRefType type,
                                      const TargetInfo &target) {
  if (!target.hasMmaSync() && !target.hasMfma() && !target.hasWgmma())
    return {};
  unsigned bits = type.getElementTypeBitWidth();
  if (type.getRank() != 2 || bits % 8 != 0)
    return {};
  int64_t rowBytes = type.getShape().back() * (bits / 8);
  for (int64_t mode : {128, 64, 32})
    if (rowBytes % mode == 0)
      return SwizzleLayoutAttr::get(type.getContext(), mode);
  return {};
}

LayoutAttrInterface
mlir::tile::getMfmaKOuterOperandLayout(MemRefType type, const GemmPlan &plan,
                                       const TargetInfo &target) {
  LayoutAttrInterface preferred = getPreferredOperandLayout(type, target);
  auto swizzle = dyn_cast_or_null<SwizzleLayoutAttr>(preferred);
  if (!swizzle || swizzle.getMode() != 128 || type.getRank() != 2 ||
      plan.warpSize != 64 || plan.atomM != 16 || plan.atomN != 16)
    return preferred;
  // Lane group g of a pair's 8e rows reads rows 2e g + j (j < 2e) with the
  // same j at once; stored at row 8 (j / 2) + 2 g + j % 2 of the pair,
  // their swizzles (the row mod 8) are 2 g + j % 2: a 16-lane group's 16
  // elements (one or two chunks, at an even chunk) XOR into chunks of
  // their own.
  int64_t e = plan.atomK / 4, span = 8 * e;
  int64_t rows = type.getShape()[0], cols = type.getShape()[1];
  int64_t panel = swizzle.getMode() / (type.getElementTypeBitWidth() / 8);
  if (rows % span != 0 || cols % panel != 0)
    return preferred;
  SmallVector<LayoutFactor> factors = {{rows / span, 0, span * panel},
                                       {4, 0, 2 * panel},
                                       {e, 0, 8 * panel},
                                       {2, 0, panel},
                                       {cols / panel, 0, rows * panel},
                                       {panel, 0, 1}};
  return SharedLayoutAttr::get(type.getContext(), factors, {4, 2},
                               swizzle.getMode());
}
