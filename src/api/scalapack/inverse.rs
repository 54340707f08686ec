//! P?TRTRI, P?POTRI and P?GETRI with ScaLAPACK 2.2's checks and workspace query (SRC/pdtrtri.f,
//! pdpotri.f, pdgetri.f and their s, c, z twins, which check and size the same; a complex
//! WORK(1) holds the size as its real part), one generic body each (`pdtrtri` is the f64
//! instance of [`trtri`], and so on; a complex P?POTRI is Hermitian), then the tile inverses on the distributed runtime
//! ([`crate::dist::inverse`]) unless the call is forwarded (small, disabled, no MPI, slower, or
//! PDGETRI's pivots not a permutation of sub(A)'s rows).
//!
//! A zero on the diagonal of the triangle an inverse divides by is found first, as the reference
//! finds it (each process scans the diagonal elements it holds in the caller's layout and keeps
//! the first zero; INFO is the largest of those over the grid), and returned with A untouched.

use super::{
    check, chk1mat, grid_or_error, ilcm, indxg2p, info_result, numroc, pchkmat, Desc, GridInfo, Operand,
    Plan, NB_,
};
use crate::api::{flag, Path, Report};
use crate::backend::{blacs, scalapack as fwd};
use crate::config::Config;
use crate::dist::inverse::Inverse;
use crate::dist::DistElem;
use crate::error::Error;
use crate::kernels::{Diag, Uplo};
use crate::scalar::pname;
use crate::tile::Raw;

fn uplo_code(uplo: u8) -> i32 {
    if flag(uplo, b'U') {
        b'U' as i32
    } else {
        b'L' as i32
    }
}

fn uplo_of(uplo: u8) -> Uplo {
    if flag(uplo, b'U') {
        Uplo::Upper
    } else {
        Uplo::Lower
    }
}

/// Tile width of the distributed inverses: `HETLA_NB` when set; the caller's block size when it
/// is 128..=256 (the tiles are then the caller's blocks, in place); otherwise 256, narrower for
/// small problems so that each process column keeps about four tile columns.
pub fn inverse_nb(cfg: &Config, n: i32, caller_nb: i32, q: i32) -> usize {
    if let Some(nb) = cfg.nb {
        return nb;
    }
    if (128..=256).contains(&caller_nb) {
        return caller_nb as usize;
    }
    let cap = (n.max(1) as usize / (4 * q.max(1) as usize)).div_ceil(32) * 32;
    256.min(cap.max(32))
}

/// The reference's singularity check of PDTRTRI: each process keeps the first (smallest) index
/// s + 1 of a zero diagonal element sub(A)(s, s) among those it holds, 0 if none; INFO is the
/// largest over the grid (IGAMX2D). Collective over the grid.
fn zero_on_diagonal<T: DistElem>(n: i32, a: Raw<T>, ia: i32, ja: i32, d: &Desc, g: &GridInfo) -> i32 {
    let (mb, nb) = (d.mb(), d.nb());
    let mloc = numroc(d.m(), mb, g.myrow, d.rsrc(), g.nprow) as usize;
    let nloc = numroc(d.n(), nb, g.mycol, d.csrc(), g.npcol) as usize;
    let loc = a.matrix(mloc, nloc, d.lld().max(1) as usize);
    let mut first = 0;
    for s in 0..n {
        let (gr, gc) = (ia - 1 + s, ja - 1 + s);
        let (pr, pc) = ((d.rsrc() + gr / mb) % g.nprow, (d.csrc() + gc / nb) % g.npcol);
        if pr == g.myrow && pc == g.mycol {
            let (lr, lc) = ((gr / mb / g.nprow) * mb + gr % mb, (gc / nb / g.npcol) * nb + gc % nb);
            if loc.get(lr as usize, lc as usize) == T::zero() {
                first = s + 1;
                break;
            }
        }
    }
    blacs::igamx2d_all(d.ctxt(), first)
}

/// Runs `inv` on tiles after the singularity check; the verbose line either way.
#[allow(clippy::too_many_arguments)]
fn on_tiles<T: DistElem>(
    cfg: &Config,
    rep: &Report,
    routine: &str,
    desc: std::fmt::Arguments,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    g: &GridInfo,
    nb: usize,
    inv: &Inverse,
    flops: f64,
) -> Result<(), Error> {
    let (r, st) = crate::dist::inverse::run(cfg, n, a, ia, ja, desca, g, nb, inv);
    super::report_tiles(rep, routine, desc, desca, g, nb, &st, flops);
    r
}

/// P?TRTRI: the inverse of the upper or lower triangular sub(A).
#[allow(clippy::too_many_arguments)]
pub fn trtri<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    diag: u8,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
) -> Result<(), Error> {
    let routine = pname::<T>("trtri");
    let g = grid_or_error(desca, 7)?;
    let mut info = 0;
    chk1mat(n, 3, n, 3, ia, ja, desca, 7, &g, &mut info);
    let nounit = flag(diag, b'N');
    if info == 0 {
        let (iroff, icoff) = ((ia - 1) % desca.mb(), (ja - 1) % desca.nb());
        if !flag(uplo, b'U') && !flag(uplo, b'L') {
            info = -1;
        } else if !nounit && !flag(diag, b'U') {
            info = -2;
        } else if iroff != icoff || iroff != 0 {
            info = -6;
        } else if desca.mb() != desca.nb() {
            info = -(700 + NB_);
        }
    }
    let op = Operand { m: n, mpos: 3, n, npos: 3, i: ia, j: ja, desc: desca, descpos: 7 };
    let nb = inverse_nb(cfg, n, desca.nb(), g.npcol);
    let mut plan = Plan::local(cfg, routine, n.max(0) as usize, nb);
    let dcode = if nounit { b'N' } else { b'U' } as i32;
    pchkmat(desca.ctxt(), &g, &[op], &[(uplo_code(uplo), 1), (dcode, 2)], &mut info, Some(&mut plan));
    check(info)?;
    if n == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let (uc, dc) = (uplo.to_ascii_uppercase() as char, diag.to_ascii_uppercase() as char);
    let flops = T::FLOPS * (n as f64).powi(3) / 3.0;
    let desc = format_args!("uplo={uc} diag={dc} n={n} ia={ia} ja={ja}");
    if let Some(why) = plan.forward {
        let info = fwd::trtri::<T>(uplo, diag, n, a, ia, ja, &desca.0);
        let grid = format_args!("mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol);
        rep.finish(routine, format_args!("{desc} {grid}"), Path::Forward, Some(why), flops);
        return info_result(info);
    }
    if nounit {
        let z = zero_on_diagonal(n, a, ia, ja, desca, &g);
        if z > 0 {
            return Err(Error::Numerical(z));
        }
    }
    let ul = uplo_of(uplo);
    let dg = if nounit { Diag::NonUnit } else { Diag::Unit };
    on_tiles(cfg, &rep, routine, desc, n, a, ia, ja, desca, &g, plan.nb, &Inverse::Trtri(ul, dg), flops)
}

/// P?POTRI: the inverse of sub(A) from its Cholesky factor (P?POTRF's output).
#[allow(clippy::too_many_arguments)]
pub fn potri<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
) -> Result<(), Error> {
    let routine = pname::<T>("potri");
    let g = grid_or_error(desca, 6)?;
    let mut info = 0;
    chk1mat(n, 2, n, 2, ia, ja, desca, 6, &g, &mut info);
    if info == 0 {
        let (iroff, icoff) = ((ia - 1) % desca.mb(), (ja - 1) % desca.nb());
        if !flag(uplo, b'U') && !flag(uplo, b'L') {
            info = -1;
        } else if iroff != icoff || iroff != 0 {
            info = -5;
        } else if desca.mb() != desca.nb() {
            info = -(600 + NB_);
        }
    }
    let op = Operand { m: n, mpos: 2, n, npos: 2, i: ia, j: ja, desc: desca, descpos: 6 };
    let nb = inverse_nb(cfg, n, desca.nb(), g.npcol);
    let mut plan = Plan::local(cfg, routine, n.max(0) as usize, nb);
    pchkmat(desca.ctxt(), &g, &[op], &[(uplo_code(uplo), 1)], &mut info, Some(&mut plan));
    check(info)?;
    if n == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let uc = uplo.to_ascii_uppercase() as char;
    let flops = T::FLOPS * 2.0 * (n as f64).powi(3) / 3.0;
    let desc = format_args!("uplo={uc} n={n} ia={ia} ja={ja}");
    if let Some(why) = plan.forward {
        let info = fwd::potri::<T>(uplo, n, a, ia, ja, &desca.0);
        let grid = format_args!("mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol);
        rep.finish(routine, format_args!("{desc} {grid}"), Path::Forward, Some(why), flops);
        return info_result(info);
    }
    let z = zero_on_diagonal(n, a, ia, ja, desca, &g);
    if z > 0 {
        return Err(Error::Numerical(z));
    }
    on_tiles(
        cfg,
        &rep,
        routine,
        desc,
        n,
        a,
        ia,
        ja,
        desca,
        &g,
        plan.nb,
        &Inverse::Potri(uplo_of(uplo)),
        flops,
    )
}

/// ICEIL.
fn iceil(x: i32, y: i32) -> i32 {
    (x + y - 1) / y
}

/// PDGETRI's minimal LWORK and LIWORK on this process (what a workspace query returns).
fn getri_workspace(n: i32, ia: i32, d: &Desc, g: &GridInfo) -> (i32, i32) {
    let (mb, nb) = (d.mb(), d.nb());
    let iroff = (ia - 1) % mb;
    let iarow = indxg2p(ia, mb, d.rsrc(), g.nprow);
    let np = numroc(n + iroff, mb, g.myrow, iarow, g.nprow);
    let lwmin = np * nb;
    let nq = numroc(d.n(), nb, g.mycol, d.csrc(), g.npcol);
    let liwmin = if g.nprow == g.npcol {
        nq + nb
    } else {
        let lcm = ilcm(g.nprow, g.npcol);
        let mp = numroc(d.m() + mb * g.nprow, mb, g.myrow, d.rsrc(), g.nprow);
        numroc(d.m() + mb * g.nprow + iroff, nb, g.mycol, d.csrc(), g.npcol)
            + (mb * iceil(iceil(mp, mb), lcm / g.nprow)).max(nb)
    };
    (lwmin, liwmin)
}

/// P?GETRI: the inverse of sub(A) from P?GETRF's factors and pivots; LWORK = −1 or LIWORK = −1
/// is a workspace query. The tile path uses neither workspace.
#[allow(clippy::too_many_arguments)]
pub fn getri<T: DistElem>(
    cfg: &Config,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ipiv: Raw<i32>,
    work: Raw<T>,
    lwork: i32,
    iwork: Raw<i32>,
    liwork: i32,
) -> Result<(), Error> {
    let routine = pname::<T>("getri");
    let g = grid_or_error(desca, 5)?;
    let mut info = 0;
    chk1mat(n, 1, n, 1, ia, ja, desca, 5, &g, &mut info);
    let mut lquery = false;
    if info == 0 {
        let (iroff, icoff) = ((ia - 1) % desca.mb(), (ja - 1) % desca.nb());
        let (lwmin, liwmin) = getri_workspace(n, ia, desca, &g);
        // Stored before LWORK and LIWORK are judged, as the reference does.
        work.set(0, T::from_f64(lwmin as f64));
        iwork.set(0, liwmin);
        lquery = lwork == -1 || liwork == -1;
        if iroff != icoff || iroff != 0 {
            info = -4;
        } else if desca.mb() != desca.nb() {
            info = -(500 + NB_);
        } else if lwork < lwmin && !lquery {
            info = -8;
        } else if liwork < liwmin && !lquery {
            info = -10;
        }
    }
    let op = Operand { m: n, mpos: 1, n, npos: 1, i: ia, j: ja, desc: desca, descpos: 5 };
    let nb = inverse_nb(cfg, n, desca.nb(), g.npcol);
    let mut plan = Plan::local(cfg, routine, n.max(0) as usize, nb);
    let q = |l: i32| if l == -1 { -1 } else { 1 };
    pchkmat(desca.ctxt(), &g, &[op], &[(q(lwork), 8), (q(liwork), 10)], &mut info, Some(&mut plan));
    check(info)?;
    if lquery || n == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let flops = T::FLOPS * 4.0 * (n as f64).powi(3) / 3.0;
    let desc = format_args!("n={n} ia={ia} ja={ja}");
    let mut why = plan.forward;
    if why.is_none() {
        let z = zero_on_diagonal(n, a, ia, ja, desca, &g);
        if z > 0 {
            return Err(Error::Numerical(z));
        }
        let grid = crate::dist::grid::Grid::from_context(desca.ctxt(), &g);
        match crate::dist::solve::gather_swaps(&grid, n as usize, ia, desca, ipiv) {
            Ok(swaps) => {
                let piv: Vec<i32> = swaps.iter().map(|&s| s as i32 + 1).collect();
                return on_tiles(
                    cfg,
                    &rep,
                    routine,
                    desc,
                    n,
                    a,
                    ia,
                    ja,
                    desca,
                    &g,
                    plan.nb,
                    &Inverse::Getri(piv),
                    flops,
                );
            }
            // The same on every rank.
            Err(reason) => why = Some(reason),
        }
    }
    let info = fwd::getri::<T>(n, a, ia, ja, &desca.0, ipiv, work, lwork, iwork, liwork);
    let grid = format_args!("mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol);
    rep.finish(routine, format_args!("{desc} {grid}"), Path::Forward, why, flops);
    info_result(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_functions() {
        assert_eq!(ilcm(2, 3), 6);
        assert_eq!(ilcm(4, 6), 12);
        assert_eq!(ilcm(1, 8), 8);
        assert_eq!(iceil(7, 2), 4);
        assert_eq!(iceil(6, 2), 3);
        let cfg = Config::with_threads(1);
        assert_eq!(inverse_nb(&cfg, 4000, 64, 2), 256);
        assert_eq!(inverse_nb(&cfg, 4000, 128, 2), 128);
        assert_eq!(inverse_nb(&cfg, 100, 64, 2), 32);
    }
}
