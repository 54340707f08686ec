C     LEGACY_PDSOLVER: the MPI sibling of legacy_solver.f, written the way distributed
C     programs of the ScaLAPACK era were: fixed form, implicit interfaces, a BLACS process
C     grid, array descriptors, one static work array carved into the local pieces, ScaLAPACK
C     called by name. hetla runs its PDPOTRF, PDGETRF and PDGEQRF on tiles without a change
C     here (LD_PRELOAD, or relinking with -lhetla ahead of -lscalapack-openmpi).
C
C     Usage:  mpirun -np P legacy_pdsolver [N [NB]]   (default N = 2000, NB = 64)
C
C     The P processes form the most nearly square NPROW x NPCOL grid (NPROW <= NPCOL). Every
C     process fills its own part of the block-cyclic matrices from a hash of the global
C     indices, so the matrices do not depend on the grid:
C        S   symmetric, N added to its diagonal (positive definite, well conditioned),
C        G   general, entries in (-1, 1),
C        b, y  vectors, entries in (-1, 1).
C     It then times (wall clock, MPI_WTIME between barriers)
C        PDPOTRF  S = L L**T, followed by PDPOTRS for S x = b,
C        PDGETRF  G = P L U,  followed by PDGETRS for G x = b,
C        PDGEQRF  G = Q R,
C     and checks each with a scaled residual that is of order 1 when the result is right:
C        factor + solve:  ||b - M x|| / (||M|| ||x|| N eps)
C        QR:              ||G y - Q (R y)|| / (||G|| ||y|| N eps), Q applied by PDORMQR
C     (infinity norms). Process 0 prints one line per factorization, with the factorization's
C     time, the solve's time and the residual:
C        NAME time= seconds residual= value info= INFO solve= seconds
C
      PROGRAM LEGPDS
      INCLUDE 'mpif.h'
      INTEGER LW, LIW
      PARAMETER (LW = 30000000, LIW = 100000)
      DOUBLE PRECISION W(LW)
      INTEGER IPIV(LIW)
      COMMON /WSPACE/ W, IPIV
C
      INTEGER IAM, NPROCS, ICTXT, NPROW, NPCOL, MYROW, MYCOL
      INTEGER N, NB, MLOC, NLOC, LLD, INFO, NEED, LWORK, ITMP
      INTEGER IA, IA0, IB, IX, IR, IY, IZ, ITAU, IWORK
      INTEGER DESCA(9), DESCB(9)
      DOUBLE PRECISION T, TS, RES, TTOT, QUERY(1)
      CHARACTER*32 ARG
      INTEGER IARGC, NUMROC
      DOUBLE PRECISION SOLRES, QRRES
      EXTERNAL NUMROC, SOLRES, QRRES
C
      CALL BLACS_PINFO(IAM, NPROCS)
      N = 2000
      NB = 64
      IF (IARGC() .GE. 1) THEN
         CALL GETARG(1, ARG)
         READ (ARG, *, ERR=900) N
      END IF
      IF (IARGC() .GE. 2) THEN
         CALL GETARG(2, ARG)
         READ (ARG, *, ERR=900) NB
      END IF
      IF (N .LT. 1 .OR. NB .LT. 1) GO TO 900
C
C     The grid: the largest NPROW <= sqrt(P) that divides P.
      NPROW = INT(SQRT(DBLE(NPROCS)))
   10 IF (MOD(NPROCS, NPROW) .NE. 0) THEN
         NPROW = NPROW - 1
         GO TO 10
      END IF
      NPCOL = NPROCS / NPROW
      CALL BLACS_GET(-1, 0, ICTXT)
      CALL BLACS_GRIDINIT(ICTXT, 'Row-major', NPROW, NPCOL)
      CALL BLACS_GRIDINFO(ICTXT, NPROW, NPCOL, MYROW, MYCOL)
C
C     Local sizes and descriptors: N-by-N matrices and N-by-1 vectors, NB-by-NB blocks, both
C     starting on process (0, 0).
      MLOC = NUMROC(N, NB, MYROW, 0, NPROW)
      NLOC = NUMROC(N, NB, MYCOL, 0, NPCOL)
      LLD = MAX(1, MLOC)
      CALL DESCINIT(DESCA, N, N, NB, NB, 0, 0, ICTXT, LLD, INFO)
      CALL DESCINIT(DESCB, N, 1, NB, NB, 0, 0, ICTXT, LLD, INFO)
C
C     Pieces of the work array: the working matrix and its original, five vectors, the QR
C     scalars, then the workspace of PDGEQRF and PDORMQR (the larger of their queries).
      IA = 1
      IA0 = IA + LLD*NLOC
      IB = IA0 + LLD*NLOC
      IX = IB + LLD
      IR = IX + LLD
      IY = IR + LLD
      IZ = IY + LLD
      ITAU = IZ + LLD
      IWORK = ITAU + NLOC + NB
      CALL PDGEQRF(N, N, W(IA), 1, 1, DESCA, W(ITAU), QUERY, -1,
     $             INFO)
      LWORK = INT(QUERY(1))
      CALL PDORMQR('L', 'N', N, 1, N, W(IA), 1, 1, DESCA, W(ITAU),
     $             W(IZ), 1, 1, DESCB, QUERY, -1, INFO)
      LWORK = MAX(LWORK, INT(QUERY(1)), LLD)
      NEED = IWORK + LWORK
      ITMP = 0
      IF (NEED .GT. LW .OR. MLOC + NB .GT. LIW) ITMP = 1
      CALL IGAMX2D(ICTXT, 'All', ' ', 1, 1, ITMP, 1, -1, -1, -1, -1,
     $             -1)
      IF (ITMP .NE. 0) THEN
         IF (IAM .EQ. 0) WRITE (*, 9040) N, NPROCS
         GO TO 800
      END IF
C
      IF (IAM .EQ. 0) WRITE (*, 9000) N, NB, NPROW, NPCOL
      TTOT = 0.0D0
C
C     PDPOTRF and PDPOTRS on the symmetric positive definite matrix.
      CALL FILLM(1, N, NB, W(IA0), LLD, MLOC, NLOC, MYROW, MYCOL,
     $           NPROW, NPCOL)
      CALL FILLV(3, NB, W(IB), MLOC, MYROW, MYCOL, NPROW)
      CALL DLACPY('A', MLOC, NLOC, W(IA0), LLD, W(IA), LLD)
      CALL DLACPY('A', MLOC, 1, W(IB), LLD, W(IX), LLD)
      CALL BLACS_BARRIER(ICTXT, 'All')
      T = MPI_WTIME()
      CALL PDPOTRF('L', N, W(IA), 1, 1, DESCA, INFO)
      CALL BLACS_BARRIER(ICTXT, 'All')
      TS = MPI_WTIME()
      T = TS - T
      IF (INFO .EQ. 0) CALL PDPOTRS('L', N, 1, W(IA), 1, 1, DESCA,
     $                              W(IX), 1, 1, DESCB, INFO)
      CALL BLACS_BARRIER(ICTXT, 'All')
      TS = MPI_WTIME() - TS
      TTOT = TTOT + T + TS
      RES = SOLRES(ICTXT, N, W(IA0), DESCA, W(IX), W(IB), W(IR), DESCB,
     $             W(IWORK))
      IF (IAM .EQ. 0) WRITE (*, 9010) 'PDPOTRF', T, RES, INFO, TS
C
C     PDGETRF and PDGETRS on the general matrix.
      CALL FILLM(2, N, NB, W(IA0), LLD, MLOC, NLOC, MYROW, MYCOL,
     $           NPROW, NPCOL)
      CALL DLACPY('A', MLOC, NLOC, W(IA0), LLD, W(IA), LLD)
      CALL DLACPY('A', MLOC, 1, W(IB), LLD, W(IX), LLD)
      CALL BLACS_BARRIER(ICTXT, 'All')
      T = MPI_WTIME()
      CALL PDGETRF(N, N, W(IA), 1, 1, DESCA, IPIV, INFO)
      CALL BLACS_BARRIER(ICTXT, 'All')
      TS = MPI_WTIME()
      T = TS - T
      IF (INFO .EQ. 0) CALL PDGETRS('N', N, 1, W(IA), 1, 1, DESCA,
     $                              IPIV, W(IX), 1, 1, DESCB, INFO)
      CALL BLACS_BARRIER(ICTXT, 'All')
      TS = MPI_WTIME() - TS
      TTOT = TTOT + T + TS
      RES = SOLRES(ICTXT, N, W(IA0), DESCA, W(IX), W(IB), W(IR), DESCB,
     $             W(IWORK))
      IF (IAM .EQ. 0) WRITE (*, 9010) 'PDGETRF', T, RES, INFO, TS
C
C     PDGEQRF on the same general matrix.
      CALL DLACPY('A', MLOC, NLOC, W(IA0), LLD, W(IA), LLD)
      CALL BLACS_BARRIER(ICTXT, 'All')
      T = MPI_WTIME()
      CALL PDGEQRF(N, N, W(IA), 1, 1, DESCA, W(ITAU), W(IWORK), LWORK,
     $             INFO)
      CALL BLACS_BARRIER(ICTXT, 'All')
      T = MPI_WTIME() - T
      TTOT = TTOT + T
      CALL FILLV(4, NB, W(IY), MLOC, MYROW, MYCOL, NPROW)
      RES = QRRES(ICTXT, N, W(IA0), W(IA), DESCA, W(ITAU), W(IY),
     $            W(IZ), DESCB, W(IWORK), LWORK)
      IF (IAM .EQ. 0) WRITE (*, 9010) 'PDGEQRF', T, RES, INFO, 0.0D0
      IF (IAM .EQ. 0) WRITE (*, 9020) TTOT
C
  800 CALL BLACS_GRIDEXIT(ICTXT)
      CALL BLACS_EXIT(0)
      STOP
C
  900 IF (IAM .EQ. 0) WRITE (*, 9030)
      CALL BLACS_EXIT(0)
      STOP 1
 9000 FORMAT ('LEGACY_PDSOLVER N= ', I6, ' NB= ', I4, ' grid= ', I3,
     $        ' x ', I3)
 9010 FORMAT (A7, ' time= ', F10.4, ' residual= ', 1PE10.3,
     $        ' info= ', I6, ' solve= ', 0PF10.4)
 9020 FORMAT ('TOTAL   time= ', F10.4)
 9030 FORMAT ('usage: mpirun -np P legacy_pdsolver [N [NB]]')
 9040 FORMAT ('legacy_pdsolver: N= ', I6, ' does not fit the work ',
     $        'array on ', I4, ' processes')
      END
C
C     A pseudo-random value in (-1, 1) from three integers: the fractional part of a large
C     multiple of a sine. Every process computes the same value for the same indices.
      DOUBLE PRECISION FUNCTION HVAL(I, J, K)
      INTEGER I, J, K
      DOUBLE PRECISION T
      T = SIN(DBLE(I)*12.9898D0 + DBLE(J)*78.233D0 + DBLE(K)*37.719D0)
     $    * 43758.5453D0
      HVAL = T - AINT(T)
      RETURN
      END
C
C     This process's part of matrix KIND (1: the symmetric positive definite S, 2: the
C     general G): local entry (IL, JL) holds global entry (INDXL2G(IL), INDXL2G(JL)).
      SUBROUTINE FILLM(KIND, N, NB, A, LLD, MLOC, NLOC, MYROW, MYCOL,
     $                 NPROW, NPCOL)
      INTEGER KIND, N, NB, LLD, MLOC, NLOC, MYROW, MYCOL, NPROW, NPCOL
      DOUBLE PRECISION A(LLD, *)
      INTEGER IL, JL, IG, JG
      INTEGER INDXL2G
      DOUBLE PRECISION HVAL
      EXTERNAL INDXL2G, HVAL
      DO 20 JL = 1, NLOC
         JG = INDXL2G(JL, NB, MYCOL, 0, NPCOL)
         DO 10 IL = 1, MLOC
            IG = INDXL2G(IL, NB, MYROW, 0, NPROW)
            IF (KIND .EQ. 1) THEN
               A(IL, JL) = HVAL(MIN(IG, JG), MAX(IG, JG), 1)
               IF (IG .EQ. JG) A(IL, JL) = ABS(A(IL, JL)) + DBLE(N)
            ELSE
               A(IL, JL) = HVAL(IG, JG, 2)
            END IF
   10    CONTINUE
   20 CONTINUE
      RETURN
      END
C
C     This process's part of vector number KIND (an N-by-1 matrix in process column 0).
      SUBROUTINE FILLV(KIND, NB, V, MLOC, MYROW, MYCOL, NPROW)
      INTEGER KIND, NB, MLOC, MYROW, MYCOL, NPROW
      DOUBLE PRECISION V(*)
      INTEGER IL
      INTEGER INDXL2G
      DOUBLE PRECISION HVAL
      EXTERNAL INDXL2G, HVAL
      IF (MYCOL .NE. 0) RETURN
      DO 10 IL = 1, MLOC
         V(IL) = HVAL(INDXL2G(IL, NB, MYROW, 0, NPROW), 0, KIND)
   10 CONTINUE
      RETURN
      END
C
C     ||B - A X|| / (||A|| ||X|| N eps), the same on every process; R is a vector like B,
C     WORK scratch of the local row count.
      DOUBLE PRECISION FUNCTION SOLRES(ICTXT, N, A, DESCA, X, B, R,
     $                                 DESCB, WORK)
      INTEGER ICTXT, N, DESCA(9), DESCB(9)
      DOUBLE PRECISION A(*), X(*), B(*), R(*), WORK(*)
      DOUBLE PRECISION ANORM, XNORM, RNORM
      DOUBLE PRECISION PDLANGE, PDLAMCH
      EXTERNAL PDLANGE, PDLAMCH
      ANORM = PDLANGE('I', N, N, A, 1, 1, DESCA, WORK)
      XNORM = PDLANGE('I', N, 1, X, 1, 1, DESCB, WORK)
      CALL PDLACPY('A', N, 1, B, 1, 1, DESCB, R, 1, 1, DESCB)
      CALL PDGEMV('N', N, N, -1.0D0, A, 1, 1, DESCA, X, 1, 1, DESCB, 1,
     $            1.0D0, R, 1, 1, DESCB, 1)
      RNORM = PDLANGE('I', N, 1, R, 1, 1, DESCB, WORK)
      SOLRES = RNORM / (ANORM * XNORM * DBLE(N) * PDLAMCH(ICTXT, 'E'))
      RETURN
      END
C
C     ||G Y - Q (R Y)|| / (||G|| ||Y|| N eps) for the PDGEQRF output F (R on and above the
C     diagonal, the Householder vectors below, their scalars in TAU); Z is a vector like Y,
C     WORK of length LWORK (enough for PDORMQR).
      DOUBLE PRECISION FUNCTION QRRES(ICTXT, N, G, F, DESCA, TAU, Y, Z,
     $                                DESCB, WORK, LWORK)
      INTEGER ICTXT, N, DESCA(9), DESCB(9), LWORK
      DOUBLE PRECISION G(*), F(*), TAU(*), Y(*), Z(*), WORK(*)
      DOUBLE PRECISION GNORM, YNORM, RNORM
      INTEGER INFO
      DOUBLE PRECISION PDLANGE, PDLAMCH
      EXTERNAL PDLANGE, PDLAMCH
      GNORM = PDLANGE('I', N, N, G, 1, 1, DESCA, WORK)
      YNORM = PDLANGE('I', N, 1, Y, 1, 1, DESCB, WORK)
      CALL PDLACPY('A', N, 1, Y, 1, 1, DESCB, Z, 1, 1, DESCB)
      CALL PDTRMV('U', 'N', 'N', N, F, 1, 1, DESCA, Z, 1, 1, DESCB, 1)
      CALL PDORMQR('L', 'N', N, 1, N, F, 1, 1, DESCA, TAU, Z, 1, 1,
     $             DESCB, WORK, LWORK, INFO)
      CALL PDGEMV('N', N, N, 1.0D0, G, 1, 1, DESCA, Y, 1, 1, DESCB, 1,
     $            -1.0D0, Z, 1, 1, DESCB, 1)
      RNORM = PDLANGE('I', N, 1, Z, 1, 1, DESCB, WORK)
      QRRES = RNORM / (GNORM * YNORM * DBLE(N) * PDLAMCH(ICTXT, 'E'))
      IF (INFO .NE. 0) QRRES = -1.0D0
      RETURN
      END
