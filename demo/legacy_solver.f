C     LEGACY_SOLVER: a program written the old way, the kind hetla speeds up without a change
C     to its source: fixed form, implicit interfaces, one static work array carved into
C     pieces, LAPACK called by name.
C
C     Usage:  legacy_solver [N]        (default N = 3000, at most NMAX)
C
C     It builds a seeded symmetric positive definite matrix A and a seeded general matrix G,
C     then times (wall clock, SYSTEM_CLOCK)
C        DPOSV   solve A x = b by Cholesky,
C        DGESV   solve G x = b by LU with partial pivoting,
C        DGEQRF  factor G = Q R by Householder QR,
C     and checks each result with a scaled residual that is of order 1 when it is right:
C        solvers: ||b - M x|| / (||M|| ||x|| N eps)
C        QR:      ||G y - Q (R y)|| / (||G|| ||y|| N eps), y random, Q applied by DORMQR
C     (infinity norms). One line per routine: NAME time= seconds residual= value info= INFO.
C
      PROGRAM LEGSOL
      INTEGER NMAX, LW
      PARAMETER (NMAX = 5000)
      PARAMETER (LW = 2*NMAX*NMAX + 6*NMAX + 64*NMAX)
      DOUBLE PRECISION W(LW)
      INTEGER IPIV(NMAX)
      COMMON /WSPACE/ W, IPIV
C
      INTEGER N, INFO, NWORK, ISEED(4)
      INTEGER IA, IA0, IB, IX, IY, IR, ITAU, IWORK
      DOUBLE PRECISION T, RES, TTOT
      CHARACTER*32 ARG
      INTEGER IARGC
      DOUBLE PRECISION WTIME, SOLRES, QRRES
      EXTERNAL WTIME, SOLRES, QRRES
      DATA ISEED /1988, 7, 1111, 2023/
C
      N = 3000
      IF (IARGC() .GE. 1) THEN
         CALL GETARG(1, ARG)
         READ (ARG, *, ERR=900) N
      END IF
      IF (N .LT. 1 .OR. N .GT. NMAX) GO TO 900
C
C     Pieces of the work array: two N-by-N matrices (the working copy and the original), five
C     vectors and the QR workspace.
      IA = 1
      IA0 = IA + N*N
      IB = IA0 + N*N
      IX = IB + N
      IY = IX + N
      IR = IY + N
      ITAU = IR + N
      IWORK = ITAU + N
      NWORK = 64*N
C
      WRITE (*, 9000) N
      TTOT = 0.0D0
C
C     DPOSV on the symmetric positive definite matrix.
      CALL GENSPD(N, W(IA0), N, ISEED)
      CALL DLARNV(2, ISEED, N, W(IB))
      CALL DLACPY('A', N, N, W(IA0), N, W(IA), N)
      CALL DCOPY(N, W(IB), 1, W(IX), 1)
      T = WTIME()
      CALL DPOSV('L', N, 1, W(IA), N, W(IX), N, INFO)
      T = WTIME() - T
      TTOT = TTOT + T
      RES = SOLRES(N, W(IA0), N, W(IX), W(IB), W(IR))
      WRITE (*, 9010) 'DPOSV ', T, RES, INFO
C
C     DGESV on the general matrix.
      CALL DLARNV(2, ISEED, N*N, W(IA0))
      CALL DLARNV(2, ISEED, N, W(IB))
      CALL DLACPY('A', N, N, W(IA0), N, W(IA), N)
      CALL DCOPY(N, W(IB), 1, W(IX), 1)
      T = WTIME()
      CALL DGESV(N, 1, W(IA), N, IPIV, W(IX), N, INFO)
      T = WTIME() - T
      TTOT = TTOT + T
      RES = SOLRES(N, W(IA0), N, W(IX), W(IB), W(IR))
      WRITE (*, 9010) 'DGESV ', T, RES, INFO
C
C     DGEQRF on the same general matrix.
      CALL DLACPY('A', N, N, W(IA0), N, W(IA), N)
      T = WTIME()
      CALL DGEQRF(N, N, W(IA), N, W(ITAU), W(IWORK), NWORK, INFO)
      T = WTIME() - T
      TTOT = TTOT + T
      CALL DLARNV(2, ISEED, N, W(IY))
      RES = QRRES(N, W(IA0), W(IA), N, W(ITAU), W(IY), W(IR),
     $            W(IWORK), NWORK)
      WRITE (*, 9010) 'DGEQRF', T, RES, INFO
      WRITE (*, 9020) TTOT
      STOP
C
  900 WRITE (*, 9030) NMAX
      STOP 1
 9000 FORMAT ('LEGACY_SOLVER N= ', I6)
 9010 FORMAT (A6, ' time= ', F10.4, ' residual= ', 1PE10.3,
     $        ' info= ', I6)
 9020 FORMAT ('TOTAL  time= ', F10.4)
 9030 FORMAT ('usage: legacy_solver [N], 1 <= N <= ', I6)
      END
C
C     Wall-clock seconds since an arbitrary origin.
      DOUBLE PRECISION FUNCTION WTIME()
      INTEGER*8 COUNT, RATE
      CALL SYSTEM_CLOCK(COUNT, RATE)
      WTIME = DBLE(COUNT) / DBLE(RATE)
      RETURN
      END
C
C     A seeded symmetric matrix with N added to its diagonal: diagonally dominant, hence
C     positive definite and well conditioned.
      SUBROUTINE GENSPD(N, A, LDA, ISEED)
      INTEGER N, LDA, ISEED(4)
      DOUBLE PRECISION A(LDA, *)
      INTEGER I, J
      DO 10 J = 1, N
         CALL DLARNV(2, ISEED, N - J + 1, A(J, J))
   10 CONTINUE
      DO 30 J = 1, N
         A(J, J) = ABS(A(J, J)) + DBLE(N)
         DO 20 I = J + 1, N
            A(J, I) = A(I, J)
   20    CONTINUE
   30 CONTINUE
      RETURN
      END
C
C     ||B - A X|| / (||A|| ||X|| N eps); R is scratch of length N.
      DOUBLE PRECISION FUNCTION SOLRES(N, A, LDA, X, B, R)
      INTEGER N, LDA
      DOUBLE PRECISION A(LDA, *), X(*), B(*), R(*)
      DOUBLE PRECISION ANORM, XNORM, RNORM
      INTEGER IDAMAX
      DOUBLE PRECISION DLANGE, DLAMCH
      EXTERNAL IDAMAX, DLANGE, DLAMCH
      ANORM = DLANGE('I', N, N, A, LDA, R)
      CALL DCOPY(N, B, 1, R, 1)
      CALL DGEMV('N', N, N, -1.0D0, A, LDA, X, 1, 1.0D0, R, 1)
      RNORM = ABS(R(IDAMAX(N, R, 1)))
      XNORM = ABS(X(IDAMAX(N, X, 1)))
      SOLRES = RNORM / (ANORM * XNORM * DBLE(N) * DLAMCH('Epsilon'))
      RETURN
      END
C
C     ||G Y - Q (R Y)|| / (||G|| ||Y|| N eps) for the DGEQRF output F (R on and above the
C     diagonal, the Householder vectors below it, their scalars in TAU); Z is scratch of
C     length N, WORK of length LWORK.
      DOUBLE PRECISION FUNCTION QRRES(N, G, F, LDA, TAU, Y, Z, WORK,
     $                                LWORK)
      INTEGER N, LDA, LWORK
      DOUBLE PRECISION G(LDA, *), F(LDA, *), TAU(*), Y(*), Z(*)
      DOUBLE PRECISION WORK(*)
      DOUBLE PRECISION GNORM, YNORM, RNORM
      INTEGER INFO
      INTEGER IDAMAX
      DOUBLE PRECISION DLANGE, DLAMCH
      EXTERNAL IDAMAX, DLANGE, DLAMCH
      GNORM = DLANGE('I', N, N, G, LDA, WORK)
      CALL DCOPY(N, Y, 1, Z, 1)
      CALL DTRMV('U', 'N', 'N', N, F, LDA, Z, 1)
      CALL DORMQR('L', 'N', N, 1, N, F, LDA, TAU, Z, N, WORK, LWORK,
     $            INFO)
      CALL DGEMV('N', N, N, 1.0D0, G, LDA, Y, 1, -1.0D0, Z, 1)
      RNORM = ABS(Z(IDAMAX(N, Z, 1)))
      YNORM = ABS(Y(IDAMAX(N, Y, 1)))
      QRRES = RNORM / (GNORM * YNORM * DBLE(N) * DLAMCH('Epsilon'))
      IF (INFO .NE. 0) QRRES = -1.0D0
      RETURN
      END
