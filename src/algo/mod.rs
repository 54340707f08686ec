//! Tile algorithms: plain loops over tile indices that submit tasks to a [`crate::runtime::Seq`].
//! They know nothing of threads, devices or MPI; they state what each task reads and writes and
//! how urgent it is, and the runtime does the rest.
//!
//! Priorities follow one rule everywhere: a task that updates tile column `j` gets
//! `(nt - j) * 4 + bonus`, so work on the next panel's column runs first (dynamic lookahead), and
//! within a column the factorization kernel outranks its solves, which outrank updates.

pub mod gels;
pub mod geqrf;
pub mod getrf;
pub mod potrf;
pub mod potrs;
pub mod tileqr;
pub mod trsm;

/// Priority of a task whose output lies in tile column `j` of `nt`, with a kernel `bonus` 0..3.
pub(crate) fn prio(nt: usize, j: usize, bonus: i64) -> i64 {
    (nt as i64 - j as i64) * 4 + bonus
}

#[cfg(test)]
pub(crate) mod testutil;
