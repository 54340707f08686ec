//! P?POTRF, P?POTRS and P?POSV with ScaLAPACK 2.2's checks (SRC/pdpotrf.f, pdpotrs.f, pdposv.f
//! and their s, c, z twins, which check the same), one generic body per routine: `pdpotrf` is the
//! f64 instance of [`potrf`], and so on; a complex matrix is Hermitian (A = L·Lᴴ).
//!
//! P?POTRF and P?POTRS run on the distributed tile runtime (`crate::dist::potrf`,
//! `crate::dist::solve`) when the problem is large enough and the process has MPI; everything else
//! goes to the next ScaLAPACK in the process. PDPOSV is PDPOTRF then PDPOTRS, as in the reference.

use super::{
    check, chk1mat, grid_or_error, indxg2p, info_result, pchkmat, Desc, GridInfo, Operand, Plan, NB_,
};
use crate::api::{flag, Path, Report};
use crate::backend::scalapack as fwd;
use crate::config::Config;
use crate::dist::solve::Operands;
use crate::dist::DistElem;
use crate::error::Error;
use crate::scalar::pname;
use crate::tile::Raw;

fn uplo_code(uplo: u8) -> i32 {
    if flag(uplo, b'U') {
        b'U' as i32
    } else {
        b'L' as i32
    }
}

/// The argument checks of P?POTRF; returns the grid and the call's plan, agreed over the grid,
/// on success.
pub fn check_potrf<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    ia: i32,
    ja: i32,
    desca: &Desc,
) -> Result<(GridInfo, Plan), Error> {
    let g = grid_or_error(desca, 6)?;
    let mut info = 0;
    chk1mat(n, 2, n, 2, ia, ja, desca, 6, &g, &mut info);
    if info == 0 {
        if !flag(uplo, b'U') && !flag(uplo, b'L') {
            info = -1;
        } else if (ia - 1) % desca.mb() != 0 {
            info = -4;
        } else if (ja - 1) % desca.nb() != 0 {
            info = -5;
        } else if desca.mb() != desca.nb() {
            info = -(600 + NB_);
        }
    }
    let op = Operand { m: n, mpos: 2, n, npos: 2, i: ia, j: ja, desc: desca, descpos: 6 };
    let routine = pname::<T>("potrf");
    let nb =
        super::caller_aligned_nb(cfg, routine, n, desca.nb(), super::pdpotrf_in_place(cfg, g.nprow, g.npcol));
    let mut plan = Plan::learned::<T>(cfg, routine, n.max(0) as usize, nb, &g, desca.nb());
    plan.shape = super::potrf_shape(cfg, g.nprow, g.npcol, nb, desca.nb());
    pchkmat(desca.ctxt(), &g, &[op], &[(uplo_code(uplo), 1)], &mut info, Some(&mut plan));
    check(info)?;
    Ok((g, plan))
}

/// P?POTRF: Cholesky factorization of sub(A) = A(IA:IA+N-1, JA:JA+N-1).
#[allow(clippy::too_many_arguments)]
pub fn potrf<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
) -> Result<(), Error> {
    let routine = pname::<T>("potrf");
    let (g, plan) = check_potrf::<T>(cfg, uplo, n, ia, ja, desca)?;
    if n == 0 {
        return Ok(());
    }
    if plan.trials {
        let mut ac = a.snapshot(super::local_span(desca, &g, ja + n - 1));
        super::dist_trials(cfg, routine, n as usize, &g, desca.ctxt(), desca.nb(), &mut || {
            potrf(cfg, uplo, n, ac.fresh(), ia, ja, desca).is_ok()
        });
        return crate::api::tune::without_trials(|| potrf(cfg, uplo, n, a, ia, ja, desca));
    }
    let rep = Report::start(cfg);
    let uc = uplo.to_ascii_uppercase() as char;
    let flops = T::FLOPS * (n as f64).powi(3) / 3.0;
    if let Some(why) = plan.forward {
        let info = fwd::potrf::<T>(uplo, n, a, ia, ja, &desca.0);
        rep.finish(
            routine,
            format_args!("uplo={uc} n={n} ia={ia} ja={ja} mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol),
            Path::Forward,
            Some(why),
            flops,
        );
        return info_result(info);
    }
    let nb = plan.nb;
    let (r, st) = crate::dist::potrf::potrf(cfg, uplo, n, a, ia, ja, desca, &g, nb, plan.shape);
    let layout = super::layout_name(plan.shape);
    super::report_tiles(
        &rep,
        routine,
        format_args!("uplo={uc} n={n} ia={ia} ja={ja} layout={layout}"),
        desca,
        &g,
        nb,
        &st,
        flops,
    );
    r
}

/// The checks PDPOTRS and PDPOSV share; `chk_b` is false for PDPOSV, which (unlike PDPOTRS) runs
/// no local check on B's descriptor, and `descb_mb_code` is the code each gives a B whose MB
/// differs from A's NB.
#[allow(clippy::too_many_arguments)]
fn check_solve(
    uplo: u8,
    n: i32,
    nrhs: i32,
    ia: i32,
    ja: i32,
    desca: &Desc,
    ib: i32,
    jb: i32,
    descb: &Desc,
    chk_b: bool,
    descb_mb_code: i32,
    plan: Option<&mut Plan>,
) -> Result<GridInfo, Error> {
    let g = grid_or_error(desca, 7)?;
    let mut info = 0;
    chk1mat(n, 2, n, 2, ia, ja, desca, 7, &g, &mut info);
    if chk_b {
        chk1mat(n, 2, nrhs, 3, ib, jb, descb, 11, &g, &mut info);
    }
    if info == 0 {
        let iarow = indxg2p(ia, desca.mb(), desca.rsrc(), g.nprow);
        let ibrow = indxg2p(ib, descb.mb(), descb.rsrc(), g.nprow);
        if !flag(uplo, b'U') && !flag(uplo, b'L') {
            info = -1;
        } else if (ia - 1) % desca.mb() != 0 {
            info = -5;
        } else if (ja - 1) % desca.nb() != 0 {
            info = -6;
        } else if desca.mb() != desca.nb() {
            info = -(700 + NB_);
        } else if (ib - 1) % descb.mb() != 0 || ibrow != iarow {
            info = -9;
        } else if descb.mb() != desca.nb() {
            info = -descb_mb_code;
        }
    }
    let opa = Operand { m: n, mpos: 2, n, npos: 2, i: ia, j: ja, desc: desca, descpos: 7 };
    let opb = Operand { m: n, mpos: 2, n: nrhs, npos: 3, i: ib, j: jb, desc: descb, descpos: 11 };
    pchkmat(desca.ctxt(), &g, &[opa, opb], &[(uplo_code(uplo), 1)], &mut info, plan);
    check(info)?;
    Ok(g)
}

/// P?POTRS: solves sub(A)·X = sub(B) with the factor from P?POTRF.
#[allow(clippy::too_many_arguments)]
pub fn potrs<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    b: Raw<T>,
    ib: i32,
    jb: i32,
    descb: &Desc,
) -> Result<(), Error> {
    let routine = pname::<T>("potrs");
    let nb = super::caller_aligned_nb(cfg, routine, n, desca.nb(), super::SOLVE_IN_PLACE);
    let mut plan = Plan::local(cfg, routine, n.max(0) as usize, nb);
    plan.forward = plan.forward.or_else(|| super::solve_slower(cfg, n, nrhs, false));
    let g = check_solve(uplo, n, nrhs, ia, ja, desca, ib, jb, descb, true, 1100 + NB_, Some(&mut plan))?;
    if n == 0 || nrhs == 0 {
        return Ok(());
    }
    let rep = Report::start(cfg);
    let uc = uplo.to_ascii_uppercase() as char;
    let flops = T::FLOPS * 2.0 * (n as f64).powi(2) * nrhs as f64;
    if let Some(why) = plan.forward {
        let info = fwd::potrs::<T>(uplo, n, nrhs, a, ia, ja, &desca.0, b, ib, jb, &descb.0);
        rep.finish(
            routine,
            format_args!("uplo={uc} n={n} nrhs={nrhs} mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol),
            Path::Forward,
            Some(why),
            flops,
        );
        return info_result(info);
    }
    let nb = plan.nb;
    let ops = Operands { n, nrhs, a, ia, ja, desca, b, ib, jb, descb };
    let (r, st) = crate::dist::solve::potrs(cfg, uplo, &ops, &g, nb);
    super::report_tiles(
        &rep,
        routine,
        format_args!("uplo={uc} n={n} nrhs={nrhs} ia={ia} ja={ja} ib={ib} jb={jb}"),
        desca,
        &g,
        nb,
        &st,
        flops,
    );
    r
}

/// P?POSV: P?POTRF then P?POTRS.
#[allow(clippy::too_many_arguments)]
pub fn posv<T: DistElem>(
    cfg: &Config,
    uplo: u8,
    n: i32,
    nrhs: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    b: Raw<T>,
    ib: i32,
    jb: i32,
    descb: &Desc,
) -> Result<(), Error> {
    check_solve(uplo, n, nrhs, ia, ja, desca, ib, jb, descb, false, 1000 + NB_, None)?;
    // Like the reference: the factorization (ours, with its own verbose line), then the solve
    // only when it succeeded.
    potrf(cfg, uplo, n, a, ia, ja, desca)?;
    potrs(cfg, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb)
}
