//! P?GEQRF with ScaLAPACK 2.2's checks and workspace query (SRC/pdgeqrf.f and its s, c, z twins,
//! which check and size WORK the same; `pdgeqrf` is the f64 instance of [`geqrf`], a complex
//! WORK(1) holds the size as its real part), then the distributed QR on 2-D block-cyclic tiles ([`crate::dist::geqrf`]) unless the call is forwarded (small,
//! disabled, no MPI).

use super::{check, chk1mat, grid_or_error, indxg2p, info_result, numroc, pchkmat, Desc, Operand, Plan};
use crate::api::{Path, Report};
use crate::backend::scalapack as fwd;
use crate::config::Config;
use crate::dist::redistribute::Shape;
use crate::dist::DistElem;
use crate::error::Error;
use crate::scalar::pname;
use crate::tile::Raw;

/// P?GEQRF: QR factorization of the M×N sub(A); LWORK = -1 is a workspace query.
#[allow(clippy::too_many_arguments)]
pub fn geqrf<T: DistElem>(
    cfg: &Config,
    m: i32,
    n: i32,
    a: Raw<T>,
    ia: i32,
    ja: i32,
    desca: &Desc,
    tau: Raw<T>,
    work: Raw<T>,
    lwork: i32,
) -> Result<(), Error> {
    let routine = pname::<T>("geqrf");
    let g = grid_or_error(desca, 6)?;
    let mut info = 0;
    chk1mat(m, 1, n, 2, ia, ja, desca, 6, &g, &mut info);
    let lquery = lwork == -1;
    if info == 0 {
        let icoff = (ja - 1) % desca.nb();
        let iarow = indxg2p(ia, desca.mb(), desca.rsrc(), g.nprow);
        let iacol = indxg2p(ja, desca.nb(), desca.csrc(), g.npcol);
        let mp0 = numroc(m + (ia - 1) % desca.mb(), desca.mb(), g.myrow, iarow, g.nprow);
        let nq0 = numroc(n + icoff, desca.nb(), g.mycol, iacol, g.npcol);
        let lwmin = desca.nb() * (mp0 + nq0 + desca.nb());
        // The reference stores the minimum before it judges LWORK, so a caller with too small a
        // workspace still learns the size it needs.
        work.set(0, T::from_f64(lwmin as f64));
        if lwork < lwmin && !lquery {
            info = -9;
        }
    }
    let op = Operand { m, mpos: 1, n, npos: 2, i: ia, j: ja, desc: desca, descpos: 6 };
    // Square tiles coincide with the caller's blocks only when those are square too.
    let caller_nb = if desca.mb() == desca.nb() { desca.nb() } else { 0 };
    let shape = super::lu_qr_shape(cfg, g.nprow, g.npcol);
    // With whole tile columns over all ranks the tiles are sized as for one process row.
    let (p, q) = if shape == Shape::OneRow { (1, g.nprow * g.npcol) } else { (g.nprow, g.npcol) };
    let nb = super::lu_qr_nb(cfg, routine, n, caller_nb, (p, q), super::caller_layout(shape, g.nprow));
    let mut plan =
        Plan { shape, ..Plan::learned::<T>(cfg, routine, m.min(n).max(0) as usize, nb, &g, caller_nb) };
    pchkmat(desca.ctxt(), &g, &[op], &[(if lquery { -1 } else { 1 }, 9)], &mut info, Some(&mut plan));
    check(info)?;
    if lquery || m == 0 || n == 0 {
        return Ok(());
    }
    if plan.trials {
        let mut ac = a.snapshot(super::local_span(desca, &g, ja + n - 1));
        let mut tc = tau.snapshot(super::local_cols(desca, &g, ja + m.min(n) - 1));
        let mut wc = work.snapshot(lwork as usize);
        let size = m.min(n) as usize;
        super::dist_trials(cfg, routine, size, &g, desca.ctxt(), caller_nb, &mut || {
            geqrf(cfg, m, n, ac.fresh(), ia, ja, desca, tc.fresh(), wc.fresh(), lwork).is_ok()
        });
        return crate::api::tune::without_trials(|| geqrf(cfg, m, n, a, ia, ja, desca, tau, work, lwork));
    }
    let rep = Report::start(cfg);
    let (mf, nf) = (m as f64, n as f64);
    let k = mf.min(nf);
    let flops = T::FLOPS * (2.0 * mf * nf * k - (mf + nf) * k * k + 2.0 * k * k * k / 3.0);
    if let Some(why) = plan.forward {
        let info = fwd::geqrf::<T>(m, n, a, ia, ja, &desca.0, tau, work, lwork);
        rep.finish(
            routine,
            format_args!("m={m} n={n} ia={ia} ja={ja} mb={} grid={}x{}", desca.mb(), g.nprow, g.npcol),
            Path::Forward,
            Some(why),
            flops,
        );
        return info_result(info);
    }
    let nb = plan.nb;
    let (r, st) = crate::dist::geqrf::geqrf(cfg, m, n, a, ia, ja, desca, tau, &g, nb, plan.shape);
    super::report_tiles(
        &rep,
        routine,
        format_args!("m={m} n={n} ia={ia} ja={ja} layout={}", super::layout_name(plan.shape)),
        desca,
        &g,
        nb,
        &st,
        flops,
    );
    r
}
