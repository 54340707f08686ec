//! Tile kernels: one tile operation per file, each a thin call into the backend BLAS/LAPACK on
//! views the runtime handed to a task. They hold the library's only calls into the backend's
//! compute routines apart from forwarded calls and the whole-array auxiliaries of
//! [`crate::backend::array`].

mod blas3;
mod conj;
mod gemqrt;
mod geqrf;
mod geqrt;
mod getrf;
mod lacpy;
mod larfb;
mod laset;
mod laswp;
mod orgqr;
mod potrf;
mod tpmqrt;
mod tpqrt;
mod transpose;
mod trsm_leaf;
mod trtri;
mod wy;

pub use blas3::{gemm, herk, trsm, TileTrsm};
pub use conj::conj;
pub use gemqrt::gemqrt;
pub use geqrf::geqrf_panel;
pub use geqrt::geqrt;
pub use getrf::{
    gepp_block_update, gepp_candidate, gepp_finish_column, getrf, getrf_slice, getrs, interchanges_to_top,
    lu_update, row_index, trsm_right_upper_zero_safe, Candidate, Perm, TileGetrf,
};
pub use lacpy::copy;
pub use larfb::{larfb, larfb_op, larfb_side, IB as QR_IB};
pub use laset::zero;
pub use laswp::{laswp, laswp_steps, Dir};
pub use orgqr::larft;
pub use potrf::potrf;
pub use tpmqrt::tpmqrt;
pub use tpqrt::tpqrt;
pub use transpose::transpose;
pub use trtri::{lauum, trmm, trtri};
pub use wy::{c_minus_vw, tt_w, vt_c};

/// `op(A)`: A, or its adjoint Aᴴ (Aᵀ for the real types: the kernels pass `Yes` to the backend
/// as [`crate::scalar::Scalar::ADJOINT`]), or its transpose Aᵀ without conjugation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trans {
    No,
    Yes,
    /// Aᵀ, not conjugated: a complex GEMM caller's `'T'` (the same as `Yes` for the real types).
    /// Only GEMM ops carry it; the algorithms' other kernels take `No` or `Yes`.
    Transpose,
}
/// The backend's TRANS character of `t` for element type `T`: `'N'`, the adjoint's
/// ([`crate::scalar::Scalar::ADJOINT`]: `'T'` real, `'C'` complex), or `'T'`.
pub fn adjoint<T: crate::scalar::Scalar>(t: Trans) -> u8 {
    match t {
        Trans::No => b'N',
        Trans::Yes => T::ADJOINT,
        Trans::Transpose => b'T',
    }
}
/// Which triangle is referenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Uplo {
    Lower,
    Upper,
}
/// Side of a triangular operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}
/// Unit or non-unit triangular diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diag {
    NonUnit,
    Unit,
}

impl Trans {
    pub(crate) fn ch(self) -> u8 {
        match self {
            Trans::No => b'N',
            Trans::Yes | Trans::Transpose => b'T',
        }
    }
}
impl Uplo {
    pub(crate) fn ch(self) -> u8 {
        match self {
            Uplo::Lower => b'L',
            Uplo::Upper => b'U',
        }
    }
}
impl Side {
    pub(crate) fn ch(self) -> u8 {
        match self {
            Side::Left => b'L',
            Side::Right => b'R',
        }
    }
}
impl Diag {
    pub(crate) fn ch(self) -> u8 {
        match self {
            Diag::NonUnit => b'N',
            Diag::Unit => b'U',
        }
    }
}

/// A dimension as the Fortran integer the backend expects.
pub(crate) fn fi(x: usize) -> i32 {
    i32::try_from(x).expect("dimension exceeds the LAPACK integer range")
}
