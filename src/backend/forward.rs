//! Whole calls handed to the backend unchanged (`path=forward`): small problems, routines listed
//! in `HETLA_DISABLE`, and calls made from inside one of our own tasks.
//!
//! These are safe functions because the pointers arrive as [`Raw`], whose creator vouched for them
//! under LAPACK's calling convention.

use super::lapack::{self as bk, ch};
use crate::tile::Raw;

pub fn dpotrf(uplo: u8, n: i32, a: Raw<f64>, lda: i32) -> i32 {
    let mut info = 0;
    // SAFETY: Raw's contract; the backend checks the arguments itself.
    unsafe { bk::dpotrf(ch(uplo), &n, a.ptr(), &lda, &mut info, 1) };
    info
}
