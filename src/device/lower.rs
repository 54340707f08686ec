//! Lowering of a [`DeviceOp`] into a list of BLAS/LAPACK calls on packed column-major blocks, as a
//! device library with the cuBLAS/cuSOLVER interface runs them (out-of-place TRMM, GEAM, batched
//! GEMM).
//!
//! Device kernels see each operand tile as its own packed buffer (leading dimension = its rows).
//! A multi-tile operand ([`super::Tiles::stack`], consecutive tile rows of one column) is first
//! gathered into a scratch *slot* with leading dimension = the stack's total rows, and scattered
//! back after the kernel if it is written. The lowering is pure data so that every parameter the
//! CUDA device passes (transposes, sides, triangles, sizes, leading dimensions, offsets, scratch
//! sizes) is checked on machines without a GPU: the tests interpret the calls with the host BLAS
//! and compare them with the emulated device, which runs each `DeviceOp` directly.
//!
//! LARFB (C ← (I − V·Tᵀ·Vᵀ)·C, V unit lower trapezoidal with R stored above its diagonal) becomes,
//! with V = [V₁; V₂] (V₁ the leading k×k) and C = [C₁; C₂] split alike, and W a k×n scratch slot:
//!
//! ```text
//!   W  = V₁ᵀ·C₁          TRMM (left, lower, transposed, unit), out of place
//!   W += V₂ᵀ·C₂          GEMM
//!   W  = Tᵀ·W            TRMM (left, upper, transposed)
//!   C₂ -= V₂·W           GEMM
//!   W  = V₁·W            TRMM (left, lower, unit)
//!   C₁ -= W              GEAM
//! ```
//!
//! which is DLARFB('L','T','F','C') as LAPACK computes it (the same blocked reflector algebra
//! MAGMA's larfb uses on GPUs), never reading the R part above V₁'s diagonal.
//!
//! LASWP's interchanges are composed into one permutation of the rows they touch (at most two per
//! pivot), which becomes one [`Call::Permute`]: every moved row is copied into a scratch block,
//! then back to its new place. cuBLAS has no row gather; the CUDA device runs each of the two
//! copies as one batched GEMM of 1×1 by 1×n products (one kernel for all rows). One
//! `cublasDswap` per interchange, as before, took 172 ms of a 306 ms dgetrf of order 4000 on an
//! H100 (56 LASWPs of up to 512 interchanges each).

use super::{DeviceOp, Tiles};
use crate::kernels::{Diag, Dir, Side, Trans, Uplo, QR_IB};
use crate::scalar::Coef;

/// Where a block lives: a declared operand tile (by position) or a scratch slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    Arg(usize),
    Slot(usize),
}

/// A column-major block: element (i, j) is at `off + i + j·ld` of `src`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mat {
    pub src: Src,
    pub off: usize,
    pub ld: usize,
}

impl Mat {
    /// The block starting at row `i`, column `j` of this one.
    pub fn at(self, i: usize, j: usize) -> Mat {
        Mat { off: self.off + i + j * self.ld, ..self }
    }
}

/// One device library call. Sizes are those of the BLAS/cuBLAS argument of the same name.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    /// Copies tiles `tiles` (stacked vertically) into `slot`, leading dimension `ld`.
    Gather {
        slot: usize,
        tiles: Tiles,
        ld: usize,
    },
    /// The reverse of `Gather`.
    Scatter {
        slot: usize,
        tiles: Tiles,
        ld: usize,
    },
    Gemm {
        ta: Trans,
        tb: Trans,
        m: usize,
        n: usize,
        k: usize,
        alpha: Coef,
        a: Mat,
        b: Mat,
        beta: Coef,
        c: Mat,
    },
    Syrk {
        uplo: Uplo,
        trans: Trans,
        n: usize,
        k: usize,
        alpha: f64,
        a: Mat,
        beta: f64,
        c: Mat,
    },
    Trsm {
        side: Side,
        uplo: Uplo,
        trans: Trans,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: f64,
        a: Mat,
        b: Mat,
    },
    /// C ← α·op(A)·B (left) or α·B·op(A) (right), out of place (C may equal B, as cuBLAS allows).
    Trmm {
        side: Side,
        uplo: Uplo,
        trans: Trans,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: f64,
        a: Mat,
        b: Mat,
        c: Mat,
    },
    /// C ← α·A + β·B (no transposes; C may equal A, as cuBLAS allows).
    Geam {
        m: usize,
        n: usize,
        alpha: f64,
        a: Mat,
        beta: f64,
        b: Mat,
        c: Mat,
    },
    /// Cholesky of the n×n block `a`; its INFO is the op's result.
    Potrf {
        uplo: Uplo,
        n: usize,
        a: Mat,
    },
    /// Moves rows of the `n`-column block `a`: for each `(dst, src)` of `moves`, row `dst`
    /// becomes the old row `src` (a permutation of the listed rows). Row `t` of `tmp` (at least
    /// `moves.len()` rows) holds the `t`-th source row in between; `ptrs` is scratch of
    /// Room for [`permute_ptrs`]`(moves.len())` 8-byte words: the device's pointer arrays.
    Permute {
        n: usize,
        a: Mat,
        tmp: Mat,
        moves: Vec<(usize, usize)>,
        ptrs: Mat,
    },
}

/// 8-byte words of a [`Call::Permute`]'s pointer scratch for `rows` moved rows: the constant
/// 1 of the op's type (two words, room for a double complex one), then four arrays of `rows`
/// device pointers (to that constant, to the source rows, to the rows of `tmp`, to the
/// destination rows).
pub fn permute_ptrs(rows: usize) -> usize {
    2 + 4 * rows
}

/// The rows LASWP's interchanges move in a block of `m` rows: `(dst, src)` pairs (row `dst` ends
/// up holding the old row `src`), applying `pivots` (block-local, 1-based) in `order`.
pub fn row_moves(m: usize, pivots: &[i32], order: impl Iterator<Item = usize>) -> Vec<(usize, usize)> {
    let mut holds: Vec<usize> = (0..m).collect();
    for i in order {
        holds.swap(i, pivots[i] as usize - 1);
    }
    holds.iter().enumerate().filter(|&(r, &s)| r != s).map(|(r, &s)| (r, s)).collect()
}

/// The calls of one op and the scratch they need.
#[derive(Clone, Debug, PartialEq)]
pub struct Lowered {
    /// Elements (of the op's type) of each scratch slot.
    pub slots: Vec<usize>,
    pub calls: Vec<Call>,
}

impl Lowered {
    /// Total scratch in elements, and each slot's offset into it.
    pub fn layout(&self) -> (usize, Vec<usize>) {
        let mut offs = Vec::with_capacity(self.slots.len());
        let mut total = 0;
        for &s in &self.slots {
            offs.push(total);
            // Slots start on 32-element (256-byte) boundaries: device libraries prefer aligned
            // operands.
            total += s.div_ceil(32) * 32;
        }
        (total, offs)
    }
}

/// Shape of a resident operand tile (packed, leading dimension `m`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub m: usize,
    pub n: usize,
}

struct Builder<'a> {
    shapes: &'a [Shape],
    out: Lowered,
    scatters: Vec<Call>,
}

impl Builder<'_> {
    /// Operand `t` as one block: the tile itself, or a gathered slot. Returns the block and its
    /// rows and columns; `written` schedules the scatter back after the kernel.
    fn operand(&mut self, t: Tiles, written: bool) -> (Mat, usize, usize) {
        let tiles = &self.shapes[t.first..t.first + t.count];
        let n = tiles[0].n;
        let m: usize = tiles.iter().map(|s| s.m).sum();
        if t.count == 1 {
            return (Mat { src: Src::Arg(t.first), off: 0, ld: m.max(1) }, m, n);
        }
        assert!(tiles.iter().all(|s| s.n == n), "a stack must be one tile column");
        let slot = self.out.slots.len();
        let ld = m.max(1);
        self.out.slots.push(ld * n);
        self.out.calls.push(Call::Gather { slot, tiles: t, ld });
        if written {
            self.scatters.push(Call::Scatter { slot, tiles: t, ld });
        }
        (Mat { src: Src::Slot(slot), off: 0, ld }, m, n)
    }

    fn work(&mut self, m: usize, n: usize) -> Mat {
        let slot = self.out.slots.len();
        self.out.slots.push(m.max(1) * n);
        Mat { src: Src::Slot(slot), off: 0, ld: m.max(1) }
    }

    fn call(&mut self, c: Call) {
        self.out.calls.push(c);
    }

    fn finish(mut self) -> Lowered {
        self.out.calls.append(&mut self.scatters);
        self.out
    }
}

/// The calls that perform `op` on resident tiles of shapes `shapes` (by declared position),
/// whose elements are `elem` bytes each (scratch slots are counted in those elements).
/// `pivots` are LASWP's block-local 1-based rows (`ipiv − ipiv_base`), read from the device
/// beforehand; other ops ignore them.
pub fn lower(op: &DeviceOp, shapes: &[Shape], pivots: &[i32], elem: usize) -> Lowered {
    let mut b =
        Builder { shapes, out: Lowered { slots: Vec::new(), calls: Vec::new() }, scatters: Vec::new() };
    match *op {
        DeviceOp::Gemm { ta, tb, alpha, a, b: bt, beta, c, k } => {
            let (cm, m, n) = b.operand(c, true);
            let (am, ar, ac) = b.operand(a, false);
            let (bm, br, bc) = b.operand(bt, false);
            let need_a = if ta == Trans::No { (m, k) } else { (k, m) };
            let need_b = if tb == Trans::No { (k, n) } else { (n, k) };
            assert!(
                ar >= need_a.0 && ac >= need_a.1 && br >= need_b.0 && bc >= need_b.1,
                "GEMM operands too small"
            );
            b.call(Call::Gemm { ta, tb, m, n, k, alpha, a: am, b: bm, beta, c: cm });
        }
        DeviceOp::Syrk { uplo, trans, alpha, a, beta, c } => {
            let (cm, m, n) = b.operand(c, true);
            assert_eq!(m, n, "SYRK's C must be square");
            let (am, ar, ac) = b.operand(a, false);
            let k = if trans == Trans::No { ac } else { ar };
            assert_eq!(if trans == Trans::No { ar } else { ac }, n, "SYRK's A must match C");
            b.call(Call::Syrk { uplo, trans, n, k, alpha, a: am, beta, c: cm });
        }
        DeviceOp::Trsm { side, uplo, trans, diag, alpha, a, b: bt } => {
            let (bm, m, n) = b.operand(bt, true);
            let (am, ar, ac) = b.operand(a, false);
            let s = if side == Side::Left { m } else { n };
            assert!(ar >= s && ac >= s, "TRSM's triangle is smaller than B");
            b.call(Call::Trsm { side, uplo, trans, diag, m, n, alpha, a: am, b: bm });
        }
        DeviceOp::Potrf { uplo, a, .. } => {
            let (am, m, n) = b.operand(a, true);
            assert_eq!(m, n, "POTRF of a non-square block");
            b.call(Call::Potrf { uplo, n, a: am });
        }
        DeviceOp::Laswp { a, count, dir, .. } => {
            let (am, m, n) = b.operand(a, true);
            assert!(pivots.len() == count && count <= m, "LASWP: {count} pivots for {m} rows");
            for (i, &p) in pivots.iter().enumerate() {
                assert!(p >= 1 && p as usize <= m, "row interchange {} -> {p} outside 1..={m}", i + 1);
            }
            let moves = match dir {
                Dir::Forward => row_moves(m, pivots, 0..count),
                Dir::Backward => row_moves(m, pivots, (0..count).rev()),
            };
            if !moves.is_empty() && n > 0 {
                let tmp = b.work(moves.len(), n);
                let ptrs = b.work((permute_ptrs(moves.len()) * 8).div_ceil(elem), 1);
                b.call(Call::Permute { n, a: am, tmp, moves, ptrs });
            }
        }
        DeviceOp::Larfb { v, k, t, c } => {
            let (cm, m, n) = b.operand(c, true);
            let (vm, vr, vc) = b.operand(v, false);
            let (tm, tr, tc) = b.operand(t, false);
            assert!(vr == m && vc >= k && m >= k && tr >= k && tc >= k, "LARFB operands do not match");
            // In blocks of at most QR_IB reflectors, the first block first (Hᵀ = H_kᵀ·…·H_1ᵀ),
            // each with its diagonal block of T, as the host kernel applies them.
            let (m0, k0, (vm0, tm0, cm0)) = (m, k, (vm, tm, cm));
            for b0 in (0..if m0 > 0 && n > 0 { k0 } else { 0 }).step_by(QR_IB) {
                let (m, k) = (m0 - b0, QR_IB.min(k0 - b0));
                let (vm, tm, cm) = (vm0.at(b0, b0), tm0.at(b0, b0), cm0.at(b0, 0));
                let w = b.work(k, n);
                let lt = (Side::Left, Uplo::Lower, Trans::Yes, Diag::Unit);
                b.call(Call::Trmm {
                    side: lt.0,
                    uplo: lt.1,
                    trans: lt.2,
                    diag: lt.3,
                    m: k,
                    n,
                    alpha: 1.0,
                    a: vm,
                    b: cm,
                    c: w,
                });
                if m > k {
                    b.call(Call::Gemm {
                        ta: Trans::Yes,
                        tb: Trans::No,
                        m: k,
                        n,
                        k: m - k,
                        alpha: Coef::from(1.0),
                        a: vm.at(k, 0),
                        b: cm.at(k, 0),
                        beta: Coef::from(1.0),
                        c: w,
                    });
                }
                b.call(Call::Trmm {
                    side: Side::Left,
                    uplo: Uplo::Upper,
                    trans: Trans::Yes,
                    diag: Diag::NonUnit,
                    m: k,
                    n,
                    alpha: 1.0,
                    a: tm,
                    b: w,
                    c: w,
                });
                if m > k {
                    b.call(Call::Gemm {
                        ta: Trans::No,
                        tb: Trans::No,
                        m: m - k,
                        n,
                        k,
                        alpha: Coef::from(-1.0),
                        a: vm.at(k, 0),
                        b: w,
                        beta: Coef::from(1.0),
                        c: cm.at(k, 0),
                    });
                }
                b.call(Call::Trmm {
                    side: Side::Left,
                    uplo: Uplo::Lower,
                    trans: Trans::No,
                    diag: Diag::Unit,
                    m: k,
                    n,
                    alpha: 1.0,
                    a: vm,
                    b: w,
                    c: w,
                });
                b.call(Call::Geam { m: k, n, alpha: 1.0, a: cm, beta: -1.0, b: w, c: cm });
            }
        }
        DeviceOp::QrPanel { .. }
        | DeviceOp::LaswpSteps { .. }
        | DeviceOp::Gather { .. }
        | DeviceOp::Scatter { .. }
        | DeviceOp::QrVtc { .. }
        | DeviceOp::QrTw { .. }
        | DeviceOp::QrVw { .. }
        | DeviceOp::LuPanel { .. }
        | DeviceOp::LuLeaf { .. }
        | DeviceOp::LuSplitUpdate { .. }
        | DeviceOp::LuUpdate { .. }
        | DeviceOp::LuExtract { .. }
        | DeviceOp::LuNewTop { .. }
        | DeviceOp::LuFill { .. }
        | DeviceOp::LuColumn { .. }
        | DeviceOp::CaluLeaf { .. }
        | DeviceOp::CaluMerge { .. }
        | DeviceOp::CaluRoot { .. }
        | DeviceOp::CaluTop { .. }
        | DeviceOp::Trmm { .. }
        | DeviceOp::Trtri { .. }
        | DeviceOp::Lauum { .. }
        | DeviceOp::LowerOut { .. }
        | DeviceOp::ColExtract { .. }
        | DeviceOp::ColFill { .. }
        | DeviceOp::QrT { .. }
        | DeviceOp::QrApply { .. }
        | DeviceOp::QrOrg { .. }
        | DeviceOp::BtLu { .. }
        | DeviceOp::BtSolve { .. } => panic!("{op:?} runs on the host only (DeviceOp::on_device)"),
    }
    b.finish()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::algo::testutil::Rng;
    use crate::backend::lapack as bk;
    use crate::device::emulated::Emulated;
    use crate::device::{DevTile, Device, HostBlock};
    use crate::tile::RawBlock;

    /// Runs `calls` with the host BLAS on `args` (packed tiles) and fresh scratch; returns INFO.
    pub(crate) fn interpret(low: &Lowered, shapes: &[Shape], args: &mut [Vec<f64>]) -> i32 {
        let mut slots: Vec<Vec<f64>> = low.slots.iter().map(|&s| vec![f64::NAN; s]).collect();
        let mut info = 0;
        // Raw pointers so that two blocks of one buffer (C₁ and C₂, W as B and C) can be
        // operands of one call, as on the device.
        let ptr = |m: Mat, args: &mut [Vec<f64>], slots: &mut [Vec<f64>]| -> *mut f64 {
            let v = match m.src {
                Src::Arg(p) => &mut args[p],
                Src::Slot(s) => &mut slots[s],
            };
            assert!(m.off <= v.len());
            v.as_mut_ptr().wrapping_add(m.off)
        };
        let blk = |p: *mut f64, m: usize, n: usize, ld: usize| RawBlock { ptr: p, m, n, ld };
        for c in &low.calls {
            match *c {
                Call::Gather { slot, tiles, ld } | Call::Scatter { slot, tiles, ld } => {
                    let gather = matches!(c, Call::Gather { .. });
                    let mut r0 = 0;
                    for p in tiles.first..tiles.first + tiles.count {
                        let s = shapes[p];
                        for j in 0..s.n {
                            for i in 0..s.m {
                                if gather {
                                    slots[slot][r0 + i + j * ld] = args[p][i + j * s.m];
                                } else {
                                    args[p][i + j * s.m] = slots[slot][r0 + i + j * ld];
                                }
                            }
                        }
                        r0 += s.m;
                    }
                }
                Call::Gemm { ta, tb, m, n, k, alpha, a, b, beta, c } => {
                    let (ar, ac) = if ta == Trans::No { (m, k) } else { (k, m) };
                    let (br, bc) = if tb == Trans::No { (k, n) } else { (n, k) };
                    let (pa, pb, pc) =
                        (ptr(a, args, &mut slots), ptr(b, args, &mut slots), ptr(c, args, &mut slots));
                    // SAFETY: test buffers sized by the lowering; A, B and C are disjoint here.
                    unsafe {
                        crate::kernels::gemm(
                            ta,
                            tb,
                            alpha.to::<f64>(),
                            blk(pa, ar, ac, a.ld).view(),
                            blk(pb, br, bc, b.ld).view(),
                            beta.to::<f64>(),
                            blk(pc, m, n, c.ld).view_mut(),
                        )
                    };
                }
                Call::Syrk { uplo, trans, n, k, alpha, a, beta, c } => {
                    let (ar, ac) = if trans == Trans::No { (n, k) } else { (k, n) };
                    let (pa, pc) = (ptr(a, args, &mut slots), ptr(c, args, &mut slots));
                    // SAFETY: as above.
                    unsafe {
                        crate::kernels::herk(
                            uplo,
                            trans,
                            alpha,
                            blk(pa, ar, ac, a.ld).view(),
                            beta,
                            blk(pc, n, n, c.ld).view_mut(),
                        )
                    };
                }
                Call::Trsm { side, uplo, trans, diag, m, n, alpha, a, b } => {
                    let s = if side == Side::Left { m } else { n };
                    let (pa, pb) = (ptr(a, args, &mut slots), ptr(b, args, &mut slots));
                    // SAFETY: as above.
                    unsafe {
                        crate::kernels::trsm(
                            side,
                            uplo,
                            trans,
                            diag,
                            alpha,
                            blk(pa, s, s, a.ld).view(),
                            blk(pb, m, n, b.ld).view_mut(),
                        )
                    };
                }
                Call::Trmm { side, uplo, trans, diag, m, n, alpha, a, b, c } => {
                    let (pa, pb, pc) =
                        (ptr(a, args, &mut slots), ptr(b, args, &mut slots), ptr(c, args, &mut slots));
                    // Out of place as cuBLAS: copy B to C, then the in-place BLAS TRMM on C.
                    if pb != pc {
                        for j in 0..n {
                            for i in 0..m {
                                // SAFETY: both blocks are m×n inside their buffers.
                                unsafe { *pc.add(i + j * c.ld) = *pb.add(i + j * b.ld) };
                            }
                        }
                    }
                    let f = |x: usize| x as i32;
                    let ch = |c: u8| c as std::ffi::c_char;
                    // SAFETY: A is the s×s triangle, C m×n, leading dimensions from the lowering.
                    unsafe {
                        bk::dtrmm(
                            &ch(side.ch()),
                            &ch(uplo.ch()),
                            &ch(trans.ch()),
                            &ch(diag.ch()),
                            &f(m),
                            &f(n),
                            &alpha,
                            pa,
                            &f(a.ld),
                            pc,
                            &f(c.ld),
                            1,
                            1,
                            1,
                            1,
                        )
                    };
                }
                Call::Geam { m, n, alpha, a, beta, b, c } => {
                    let (pa, pb, pc) =
                        (ptr(a, args, &mut slots), ptr(b, args, &mut slots), ptr(c, args, &mut slots));
                    for j in 0..n {
                        for i in 0..m {
                            // SAFETY: m×n blocks inside their buffers.
                            unsafe {
                                *pc.add(i + j * c.ld) =
                                    alpha * *pa.add(i + j * a.ld) + beta * *pb.add(i + j * b.ld)
                            };
                        }
                    }
                }
                Call::Potrf { uplo, n, a } => {
                    let pa = ptr(a, args, &mut slots);
                    // SAFETY: n×n block.
                    info = crate::kernels::potrf(uplo, unsafe { blk(pa, n, n, a.ld).view_mut() });
                }
                Call::Permute { n, a, tmp, ref moves, .. } => {
                    let (pa, pt) = (ptr(a, args, &mut slots), ptr(tmp, args, &mut slots));
                    // SAFETY: rows of n elements with stride ld inside their blocks; `tmp` has
                    // a row per move and is another slot than `a`.
                    unsafe {
                        for (t, &(_, src)) in moves.iter().enumerate() {
                            for j in 0..n {
                                *pt.add(t + j * tmp.ld) = *pa.add(src + j * a.ld);
                            }
                        }
                        for (t, &(dst, _)) in moves.iter().enumerate() {
                            for j in 0..n {
                                *pa.add(dst + j * a.ld) = *pt.add(t + j * tmp.ld);
                            }
                        }
                    }
                }
            }
        }
        info
    }

    /// Runs `op` on the emulated device (the reference semantics of every DeviceOp) and through
    /// the lowering on the host; returns the largest difference of the tiles and both INFOs.
    fn compare(
        op: &DeviceOp,
        shapes: &[Shape],
        data: &[Vec<f64>],
        ipiv: Option<(usize, Vec<i32>)>,
    ) -> (f64, i32, i32) {
        let dev = Emulated::new(0, 64 << 20);
        let mut tiles = Vec::new();
        let mut all = data.to_vec();
        for (p, s) in shapes.iter().enumerate() {
            let is_piv = ipiv.as_ref().is_some_and(|(q, _)| *q == p);
            let (elem, bytes) = (crate::tile::Kind::F64, 8 * s.m * s.n);
            let buf = dev.alloc(bytes.max(1)).unwrap();
            let mut host: Vec<u8> = Vec::new();
            if is_piv {
                // Pivots travel as f64 (exact small integers), as the LU's pivot buffers hold them.
                for v in &ipiv.as_ref().unwrap().1 {
                    host.extend_from_slice(&(*v as f64).to_ne_bytes());
                }
            } else {
                for v in &data[p] {
                    host.extend_from_slice(&v.to_ne_bytes());
                }
            }
            let blk = HostBlock { ptr: host.as_mut_ptr(), m: s.m, n: s.n, ld: s.m.max(1), elem };
            // SAFETY: `host` holds the tile and outlives the call.
            unsafe { dev.copy_in(&blk, &buf).unwrap() };
            tiles.push(DevTile { buf, m: s.m, n: s.n, elem });
        }
        let info_dev = dev.execute(op, &tiles).unwrap();
        let pivots: Vec<i32> = match op {
            DeviceOp::Laswp { ipiv_base, count, .. } => {
                ipiv.as_ref().unwrap().1[..*count].iter().map(|p| p - ipiv_base).collect()
            }
            _ => Vec::new(),
        };
        let low = lower(op, shapes, &pivots, 8);
        let info_low = interpret(&low, shapes, &mut all);
        let mut diff = 0.0f64;
        for (p, s) in shapes.iter().enumerate() {
            if ipiv.as_ref().is_some_and(|(q, _)| *q == p) {
                continue;
            }
            let mut back = vec![0.0f64; s.m * s.n];
            let blk = HostBlock {
                ptr: back.as_mut_ptr() as *mut u8,
                m: s.m,
                n: s.n,
                ld: s.m.max(1),
                elem: crate::tile::Kind::F64,
            };
            // SAFETY: `back` holds the tile.
            unsafe { dev.copy_out(&tiles[p].buf, &blk).unwrap() };
            for (x, y) in back.iter().zip(&all[p]) {
                diff = diff.max((x - y).abs());
            }
        }
        (diff, info_dev, info_low)
    }

    fn rand(rng: &mut Rng, m: usize, n: usize) -> Vec<f64> {
        (0..m * n).map(|_| rng.next()).collect()
    }

    const TOL: f64 = 1e-13;

    #[test]
    fn gemm_all_transposes_and_leading_parts() {
        let mut rng = Rng::new(11);
        for (ta, tb) in [
            (Trans::No, Trans::No),
            (Trans::No, Trans::Yes),
            (Trans::Yes, Trans::No),
            (Trans::Yes, Trans::Yes),
        ] {
            // C is 7×5, k = 3 uses a leading part of A's and B's tiles (both 7×7 / 5×7 tiles).
            let (m, n, k) = (7, 5, 3);
            let sa = if ta == Trans::No { Shape { m, n: 6 } } else { Shape { m: 4, n: m } };
            let sb = if tb == Trans::No { Shape { m: 4, n } } else { Shape { m: n, n: 6 } };
            let shapes = [sa, sb, Shape { m, n }];
            let data: Vec<_> = shapes.iter().map(|s| rand(&mut rng, s.m, s.n)).collect();
            let op = DeviceOp::Gemm {
                ta,
                tb,
                alpha: Coef::from(-1.5),
                a: Tiles::one(0),
                b: Tiles::one(1),
                beta: Coef::from(0.5),
                c: Tiles::one(2),
                k,
            };
            let low = lower(&op, &shapes, &[], 8);
            match &low.calls[..] {
                [Call::Gemm { m: 7, n: 5, k: 3, a, b, c, .. }] => {
                    assert_eq!((a.ld, b.ld, c.ld), (sa.m, sb.m, 7), "leading dimensions are the tiles' rows");
                }
                other => panic!("{other:?}"),
            }
            let (d, ..) = compare(&op, &shapes, &data, None);
            assert!(d < TOL, "{ta:?}{tb:?}: {d}");
        }
    }

    #[test]
    fn gemm_on_stacks_gathers_and_scatters_the_output_only() {
        let mut rng = Rng::new(12);
        // C = a stack of 3 tiles (4+4+2 rows) × 3, A = stack of the same rows × 5, B 5×3.
        let shapes = [
            Shape { m: 4, n: 5 },
            Shape { m: 4, n: 5 },
            Shape { m: 2, n: 5 },
            Shape { m: 5, n: 3 },
            Shape { m: 4, n: 3 },
            Shape { m: 4, n: 3 },
            Shape { m: 2, n: 3 },
        ];
        let data: Vec<_> = shapes.iter().map(|s| rand(&mut rng, s.m, s.n)).collect();
        let op = DeviceOp::Gemm {
            ta: Trans::No,
            tb: Trans::No,
            alpha: Coef::from(1.0),
            a: Tiles::stack(0, 3),
            b: Tiles::one(3),
            beta: Coef::from(1.0),
            c: Tiles::stack(4, 3),
            k: 5,
        };
        let low = lower(&op, &shapes, &[], 8);
        assert_eq!(low.slots, vec![30, 50], "C's and A's gathered blocks, 10 rows each");
        let gathers = low.calls.iter().filter(|c| matches!(c, Call::Gather { .. })).count();
        let scatters: Vec<_> = low.calls.iter().filter(|c| matches!(c, Call::Scatter { .. })).collect();
        assert_eq!(gathers, 2);
        assert_eq!(scatters, vec![&Call::Scatter { slot: 0, tiles: Tiles::stack(4, 3), ld: 10 }]);
        assert!(matches!(low.calls.last(), Some(Call::Scatter { .. })), "scatter after the kernel");
        let (total, offs) = low.layout();
        assert_eq!((total, offs), (32 + 64, vec![0, 32]));
        let (d, ..) = compare(&op, &shapes, &data, None);
        assert!(d < TOL, "{d}");
    }

    #[test]
    fn syrk_trsm_every_variant() {
        let mut rng = Rng::new(13);
        for uplo in [Uplo::Lower, Uplo::Upper] {
            for trans in [Trans::No, Trans::Yes] {
                let sa = if trans == Trans::No { Shape { m: 6, n: 4 } } else { Shape { m: 4, n: 6 } };
                let shapes = [sa, Shape { m: 6, n: 6 }];
                let data: Vec<_> = shapes.iter().map(|s| rand(&mut rng, s.m, s.n)).collect();
                let op = DeviceOp::Syrk {
                    uplo,
                    trans,
                    alpha: -1.0,
                    a: Tiles::one(0),
                    beta: 1.0,
                    c: Tiles::one(1),
                };
                assert!(matches!(lower(&op, &shapes, &[], 8).calls[..], [Call::Syrk { n: 6, k: 4, .. }]));
                let (d, ..) = compare(&op, &shapes, &data, None);
                assert!(d < TOL, "syrk {uplo:?} {trans:?}: {d}");
                for side in [Side::Left, Side::Right] {
                    for diag in [Diag::NonUnit, Diag::Unit] {
                        // A 7×7 tile whose leading square matches B (5×3: 5 for left, 3 right).
                        let shapes = [Shape { m: 7, n: 7 }, Shape { m: 5, n: 3 }];
                        let mut data: Vec<_> = shapes.iter().map(|s| rand(&mut rng, s.m, s.n)).collect();
                        for i in 0..7 {
                            data[0][i + 7 * i] += 4.0; // well conditioned
                        }
                        let op = DeviceOp::Trsm {
                            side,
                            uplo,
                            trans,
                            diag,
                            alpha: 0.75,
                            a: Tiles::one(0),
                            b: Tiles::one(1),
                        };
                        let (d, ..) = compare(&op, &shapes, &data, None);
                        assert!(d < 1e-12, "trsm {side:?} {uplo:?} {trans:?} {diag:?}: {d}");
                    }
                }
            }
        }
    }

    #[test]
    fn potrf_info_is_the_kernels() {
        let mut rng = Rng::new(14);
        let n = 9;
        for uplo in [Uplo::Lower, Uplo::Upper] {
            for bad in [None, Some(5)] {
                let g = rand(&mut rng, n, n);
                let mut a = vec![0.0; n * n];
                for j in 0..n {
                    for i in 0..n {
                        a[i + j * n] = (0..n).map(|l| g[i + l * n] * g[j + l * n]).sum::<f64>()
                            + if i == j { 1.0 } else { 0.0 };
                    }
                }
                if let Some(b) = bad {
                    a[b + b * n] = -100.0;
                }
                let shapes = [Shape { m: n, n }];
                let op = DeviceOp::Potrf { uplo, a: Tiles::one(0), info_base: 0 };
                let (d, i1, i2) = compare(&op, &shapes, &[a], None);
                assert_eq!(i1, i2);
                assert_eq!(i1, bad.map_or(0, |b| b as i32 + 1));
                if bad.is_none() {
                    assert!(d < 1e-12, "{d}");
                }
            }
        }
    }

    #[test]
    fn laswp_both_directions_on_a_stack() {
        let mut rng = Rng::new(15);
        // Block of 3 tiles (5+5+3 rows) × 4 columns, pivots in a 5×1 f64 tile with base 10.
        let shapes = [Shape { m: 5, n: 1 }, Shape { m: 5, n: 4 }, Shape { m: 5, n: 4 }, Shape { m: 3, n: 4 }];
        let data: Vec<_> = shapes.iter().map(|s| rand(&mut rng, s.m, s.n)).collect();
        let ipiv = vec![13, 11, 23, 14, 15];
        for dir in [Dir::Forward, Dir::Backward] {
            let op =
                DeviceOp::Laswp { a: Tiles::stack(1, 3), ipiv: Tiles::one(0), ipiv_base: 10, count: 5, dir };
            let pivots: Vec<i32> = ipiv.iter().map(|p| p - 10).collect();
            let low = lower(&op, &shapes, &pivots, 8);
            // Block-local pivots 3, 1, 13, 4, 5: rows 0↔2, 1↔0, 2↔12 in turn (forward: rows 0,
            // 1, 2, 12 end up holding the old rows 1, 2, 12, 0; backward, the interchanges the
            // other way round: 12, 0, 1, 2); rows 3 and 4 stay. One call for all of them.
            let permutes: Vec<&Vec<(usize, usize)>> = low
                .calls
                .iter()
                .filter_map(|c| match c {
                    Call::Permute { n: 4, moves, .. } => Some(moves),
                    _ => None,
                })
                .collect();
            let want = match dir {
                Dir::Forward => vec![(0, 1), (1, 2), (2, 12), (12, 0)],
                Dir::Backward => vec![(0, 12), (1, 0), (2, 1), (12, 2)],
            };
            assert_eq!(permutes, [&want], "rows of the gathered block (ld 13)");
            assert!(!low.calls.iter().any(|c| matches!(c, Call::Gemm { .. } | Call::Geam { .. })));
            let (d, ..) = compare(&op, &shapes, &data, Some((0, ipiv.clone())));
            assert_eq!(d, 0.0, "{dir:?}");
        }
    }

    #[test]
    fn larfb_matches_dlarfb_on_stacks_and_single_tiles() {
        let mut rng = Rng::new(16);
        // (rows of the tiles of V and C, n of C, k, columns of V's and T's tiles)
        for (rows, n, k, vn) in
            [(vec![6usize, 6, 4], 5usize, 4usize, 6usize), (vec![7], 3, 3, 5), (vec![4, 4], 6, 4, 4)]
        {
            let nt = rows.len();
            let mut shapes: Vec<Shape> = rows.iter().map(|&m| Shape { m, n: vn }).collect();
            shapes.push(Shape { m: vn, n: vn });
            shapes.extend(rows.iter().map(|&m| Shape { m, n }));
            let data: Vec<_> = shapes.iter().map(|s| rand(&mut rng, s.m, s.n)).collect();
            let op =
                DeviceOp::Larfb { v: Tiles::stack(0, nt), k, t: Tiles::one(nt), c: Tiles::stack(nt + 1, nt) };
            let low = lower(&op, &shapes, &[], 8);
            let m: usize = rows.iter().sum();
            let gemms = low.calls.iter().filter(|c| matches!(c, Call::Gemm { .. })).count();
            let trmms = low.calls.iter().filter(|c| matches!(c, Call::Trmm { .. })).count();
            assert_eq!((gemms, trmms), (if m > k { 2 } else { 0 }, 3));
            assert_eq!(*low.slots.last().unwrap(), k * n, "W is k×n");
            let (d, ..) = compare(&op, &shapes, &data, None);
            assert!(d < 1e-12, "rows {rows:?} n {n} k {k}: {d}");
        }
    }
}
