//! PDBTTRF, PDBTTRS and PDBTSV: the block tridiagonal routines (`api::bt`'s) over the processes
//! of a BLACS context, hetla's own (issue 12; no ScaLAPACK has them, so nothing is forwarded).
//! The layout and the method are `crate::dist::bt`'s; the arguments are DBTTRF's, DBTTRS's and
//! DBTSV's with ICTXT after LDB (after IPIV for PDBTTRF), and DL, D, DU, AF, IPIV and B local.
//!
//! Checks, in argument order: a process outside the grid gets -(ICTXT's position) at once; then
//! every process checks its own arguments (LAF and LDB against its own rows), the scalars that
//! must agree (N, M, NRHS, TRANS, and whether LAF = -1) are compared with process (0, 0)'s, and
//! the smallest bad position found anywhere is the INFO of every process (PCHK1MAT's rule), each
//! calling PXERBLA with it, as ScaLAPACK's routines do.
//!
//! The factors: DL, D, DU overwritten (`algo::bt`'s storage, each process its rows),
//! AF(1 .. 2·n_r·M²) two blocks per local row, AF(2·n_r·M² + 1) = [`PARTITIONED`] and
//! AF(2·n_r·M² + 2) = P, so that PDBTTRS can check that the factors are this grid's;
//! IPIV(t·M + j) = x·M + the block-local pivot of row j of D_x for local row t (row x), a global
//! row number as DBTTRF writes it. LAF ≥ 2·n_r·M² + 2 (2 on a process holding no row).

use super::{check, pchkmat, GridInfo};
use crate::api::bt::parse_trans;
use crate::api::{Path, Report};
use crate::backend::blacs;
use crate::config::Config;
use crate::dist::bt::{self as dbt, Local, LocalB, Rows};
use crate::dist::grid::Grid;
use crate::error::Error;
use crate::kernels::Trans;
use crate::tile::{recycle, Raw};

/// The code of the partitioned factors in AF (after `algo::bt::Method`'s 1-3).
pub const PARTITIONED: f64 = 4.0;

/// This process in the grid of ICTXT (argument `pos`): the grid, P, and its place r in the
/// layout (row-major grid position, its rank in the context's communicator).
struct Place {
    g: GridInfo,
    p: usize,
    r: usize,
}

fn place(ictxt: i32, pos: i32) -> Result<Place, Error> {
    let g = GridInfo::of(ictxt);
    if g.nprow < 1 || g.npcol < 1 {
        return Err(Error::Arg(pos));
    }
    Ok(Place { g, p: (g.nprow * g.npcol) as usize, r: (g.myrow * g.npcol + g.mycol) as usize })
}

/// Rows of process r (n ≥ 0).
fn rows_of(n: i32, p: usize, r: usize) -> usize {
    Rows { n: n.max(0) as usize, m: 1, p }.range(r).len()
}

/// LAF that PDBTTRF needs on a process holding `nr` rows of M×M blocks.
pub fn laf_needed(nr: usize, m: i32) -> i64 {
    2 * nr as i64 * (m.max(0) as i64).pow(2) + 2
}

/// The grid-wide checks: `local` (failing, position) in argument order on this process, `same`
/// (value, position) that must equal process (0, 0)'s. Collective over the grid.
fn agree(ictxt: i32, pl: &Place, local: &[(bool, i32)], same: &[(i32, i32)]) -> Result<(), Error> {
    let mut info = local.iter().find(|c| c.0).map_or(0, |&(_, pos)| -pos);
    let same: Vec<(i32, i32)> = same.iter().map(|&(v, pos)| (v, pos * 100)).collect();
    pchkmat(ictxt, &pl.g, &[], &same, &mut info, None);
    check(info)
}

/// The process's MPI, or why there is none to use (these routines have no reference to forward to).
fn mpi_or_error(routine: &str) -> Result<(), Error> {
    match crate::dist::unsupported_reason() {
        None => Ok(()),
        Some(why) => Err(Error::Runtime(format!("{routine} needs the process's Open MPI ({why})"))),
    }
}

fn report(
    rep: &Report,
    routine: &str,
    desc: std::fmt::Arguments,
    pl: &Place,
    st: &crate::dist::Stats,
    flops: f64,
) {
    crate::api::record_device_stats(&st.devices);
    let grid = format_args!("ranks={} grid={}x{} {st}", pl.p, pl.g.nprow, pl.g.npcol);
    rep.finish(routine, format_args!("{desc} {grid}"), Path::Tiles, None, flops);
}

/// PDBTTRF: factors the block tridiagonal matrix distributed over ICTXT's processes.
#[allow(clippy::too_many_arguments)]
pub fn pdbttrf(
    cfg: &Config,
    n: i32,
    m: i32,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    af: Raw<f64>,
    laf: i32,
    ipiv: Raw<i32>,
    ictxt: i32,
) -> Result<(), Error> {
    let pl = place(ictxt, 9)?;
    let nr = rows_of(n, pl.p, pl.r);
    let need = laf_needed(nr, m);
    let local = [(n < 0, 1), (m < 0, 2), ((laf as i64) < need && laf != -1, 7)];
    agree(ictxt, &pl, &local, &[(n, 1), (m, 2), (i32::from(laf == -1), 7)])?;
    if laf == -1 {
        af.set(0, need as f64);
        return Ok(());
    }
    if n == 0 || m == 0 {
        return Ok(());
    }
    mpi_or_error("PDBTTRF")?;
    let rep = Report::start(cfg);
    let rows = Rows { n: n as usize, m: m as usize, p: pl.p };
    let grid = Grid::from_context(ictxt, &pl.g);
    let (piv, r, st) = dbt::factor(cfg, &grid, &rows, &Local { dl, d, du, af });
    write_factor_tail(&rows, pl.r, &piv, af, ipiv);
    let flops = rows.schedule().factor_flops(rows.m);
    report(&rep, "pdbttrf", format_args!("n={n} m={m} rows={nr}"), &pl, &st, flops);
    r
}

/// IPIV (global rows; 0 where a block was not factored) and AF's header, after the factorization.
fn write_factor_tail(rows: &Rows, r: usize, piv: &[f64], af: Raw<f64>, ipiv: Raw<i32>) {
    let (s, m) = (rows.range(r).start, rows.m);
    for (t, &p) in piv.iter().enumerate() {
        let x = s + t / m;
        ipiv.set(t, if p > 0.0 { (x * m) as i32 + p as i32 } else { 0 });
    }
    let nr = piv.len() / m;
    af.set(2 * nr * m * m, PARTITIONED);
    af.set(2 * nr * m * m + 1, rows.p as f64);
}

/// PDBTTRS: solves op(A)·X = B with PDBTTRF's factors.
#[allow(clippy::too_many_arguments)]
pub fn pdbttrs(
    cfg: &Config,
    trans: u8,
    n: i32,
    m: i32,
    nrhs: i32,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    af: Raw<f64>,
    laf: i32,
    ipiv: Raw<i32>,
    b: Raw<f64>,
    ldb: i32,
    ictxt: i32,
) -> Result<(), Error> {
    let pl = place(ictxt, 13)?;
    let nr = rows_of(n, pl.p, pl.r);
    let tr = parse_trans(trans);
    let local = [
        (tr.is_none(), 1),
        (n < 0, 2),
        (m < 0, 3),
        (nrhs < 0, 4),
        ((laf as i64) < laf_needed(nr, m), 9),
        ((ldb as i64) < (nr as i64 * m.max(0) as i64).max(1), 12),
    ];
    let tcode = tr.map_or(0, |t| if t == Trans::No { 1 } else { 2 });
    agree(ictxt, &pl, &local, &[(tcode, 1), (n, 2), (m, 3), (nrhs, 4)])?;
    if n == 0 || m == 0 || nrhs == 0 {
        return Ok(());
    }
    mpi_or_error("PDBTTRS")?;
    let tr = tr.expect("checked above");
    let rows = Rows { n: n as usize, m: m as usize, p: pl.p };
    // The factors must be PDBTTRF's on this grid, on every process: agreed, so that all stop.
    let piv = read_factor_tail(&rows, pl.r, af, ipiv);
    let all_ok = blacs::igamn2d_all(ictxt, i32::from(piv.is_ok()));
    let piv = match (piv, all_ok) {
        (Ok(p), 1) => p,
        (Err(e), _) => return Err(e),
        (Ok(_), _) => {
            return Err(Error::Runtime("another process's AF or IPIV does not hold PDBTTRF's factors".into()))
        }
    };
    let rep = Report::start(cfg);
    let grid = Grid::from_context(ictxt, &pl.g);
    let lb = LocalB { b, nrhs: nrhs as usize, ld: ldb as usize };
    let (r, st) = dbt::solve(cfg, &grid, &rows, &Local { dl, d, du, af }, &piv, tr, lb);
    let flops = rows.schedule().solve_flops(rows.m, nrhs as usize);
    let tc = trans.to_ascii_uppercase() as char;
    report(&rep, "pdbttrs", format_args!("trans={tc} n={n} m={m} nrhs={nrhs} rows={nr}"), &pl, &st, flops);
    r
}

/// The block-local pivots of this process's rows from IPIV, checked with AF's header.
fn read_factor_tail(rows: &Rows, r: usize, af: Raw<f64>, ipiv: Raw<i32>) -> Result<Vec<f64>, Error> {
    let (range, m) = (rows.range(r), rows.m);
    let nr = range.len();
    let head = af.matrix(2 * nr * m * m + 2, 1, 2 * nr * m * m + 2);
    let (code, p) = (head.get(2 * nr * m * m, 0), head.get(2 * nr * m * m + 1, 0));
    if code != PARTITIONED || p != rows.p as f64 {
        return Err(Error::Runtime(format!(
            "AF does not hold PDBTTRF's factors for a grid of {} processes (its header: {code}, {p})",
            rows.p
        )));
    }
    let ip = ipiv.matrix(nr * m, 1, (nr * m).max(1));
    let mut piv = Vec::with_capacity(nr * m);
    for (t, x) in (0..nr * m).map(|t| (t, range.start + t / m)) {
        let p = ip.get(t, 0) - (x * m) as i32;
        if p < 1 || p > m as i32 {
            return Err(Error::Runtime(format!("IPIV({}) = {} is not a row of block row {x}", t + 1, p)));
        }
        piv.push(p as f64);
    }
    Ok(piv)
}

/// PDBTSV: solves A·X = B by PDBTTRF and PDBTTRS (AF and IPIV in memory of its own).
#[allow(clippy::too_many_arguments)]
pub fn pdbtsv(
    cfg: &Config,
    n: i32,
    m: i32,
    nrhs: i32,
    dl: Raw<f64>,
    d: Raw<f64>,
    du: Raw<f64>,
    b: Raw<f64>,
    ldb: i32,
    ictxt: i32,
) -> Result<(), Error> {
    let pl = place(ictxt, 9)?;
    let nr = rows_of(n, pl.p, pl.r);
    let local =
        [(n < 0, 1), (m < 0, 2), (nrhs < 0, 3), ((ldb as i64) < (nr as i64 * m.max(0) as i64).max(1), 8)];
    agree(ictxt, &pl, &local, &[(n, 1), (m, 2), (nrhs, 3)])?;
    if n == 0 || m == 0 {
        return Ok(());
    }
    mpi_or_error("PDBTSV")?;
    let rep = Report::start(cfg);
    let (nu, mu) = (n as usize, m as usize);
    let rows = Rows { n: nu, m: mu, p: pl.p };
    let grid = Grid::from_context(ictxt, &pl.g);
    // AF from the buffers kept between calls: fresh pages cost a fault per 4 KiB (`tile::recycle`),
    // which was a fifth of a call at N = 512, M = 64 on 2 ranks.
    let mut af = recycle::take((2 * nr * mu * mu).max(1));
    // SAFETY: `af` is this function's own buffer of 2·n_r blocks, alive until it returns and
    // reached only through this pointer meanwhile.
    let afr = unsafe { Raw::new(af.as_mut_ptr()) };
    let loc = Local { dl, d, du, af: afr };
    let (piv, r, mut st) = dbt::factor(cfg, &grid, &rows, &loc);
    let sch = rows.schedule();
    let mut flops = sch.factor_flops(mu);
    if r.is_ok() && nrhs > 0 {
        let lb = LocalB { b, nrhs: nrhs as usize, ld: ldb as usize };
        let (rs, s2) = dbt::solve(cfg, &grid, &rows, &loc, &piv, Trans::No, lb);
        flops += sch.solve_flops(mu, nrhs as usize);
        st.sent += s2.sent;
        st.received += s2.received;
        st.in_place += s2.in_place;
        st.devices.extend(s2.devices);
        if let Err(e) = rs {
            recycle::give(af);
            return Err(e);
        }
    }
    recycle::give(af);
    report(&rep, "pdbtsv", format_args!("n={n} m={m} nrhs={nrhs} rows={nr}"), &pl, &st, flops);
    r
}
