*> fortran-tests/legacy.f: a legacy FORTRAN 77 call site for hetla.
*>
*> Written the way old application codes are: fixed form, implicit
*> interfaces declared EXTERNAL, assumed-size DOUBLE PRECISION A(LDA,*)
*> dummies, CHARACTER flags passed as literals (gfortran appends their
*> lengths), LDA larger than M. It calls DPOTRF, DPOSV, DGETRF, DGESV,
*> DGEQRF and DGELS on seeded random matrices (DLARNV) whose sizes are
*> not multiples of the tile size, and checks every result itself:
*>   DPOTRF  ||A - L*L**T|| and ||A - U**T*U||, INFO on a matrix that
*>           is not positive definite;
*>   DPOSV   ||B - A*X||, INFO on a matrix that is not pos. definite;
*>   DGETRF  ||P*A - L*U|| with P applied from IPIV, INFO on a matrix
*>           with a zero column;
*>   DGESV   ||B - A*X||, INFO on a singular matrix;
*>   DGEQRF  Q**T*A = R, with Q**T applied by the reference DORMQR from
*>           the reflectors DGEQRF returned (LAPACK's storage format);
*>   DGELS   ||A**T*(B - A*X)|| for a least-squares problem;
*>   and the other types: ZPOTRF + ZPOTRS on a Hermitian positive
*>   definite matrix (||B - A*X||), CGETRF + CGETRS with TRANS = 'C'
*>   (||B - A**H*X||), SGEQRF + SORGQR (||A - Q*R||, ||Q**T*Q - I||),
*>   each in its own precision; ZGEMM ('T', 'C', complex ALPHA and
*>   BETA) and SGEMM ('N', 'T') against plain loops, the rows of C past
*>   M untouched.
*> Scaled residuals must stay below 30 (LAPACK's test threshold). One
*> line PASS or FAIL per routine; STOP 1 when anything failed.
*> Run with HETLA_MIN_N=0 and a small HETLA_NB to force the tile path.
      PROGRAM LEGACY
      INTEGER          NMAX, LDA
      PARAMETER        ( NMAX = 60, LDA = NMAX + 3 )
      DOUBLE PRECISION A( LDA, NMAX ), AF( LDA, NMAX ), B( LDA, 4 ),
     $                 X( LDA, 4 ), R( LDA, NMAX ), TAU( NMAX ),
     $                 WORK( 8192 )
      INTEGER          IPIV( NMAX ), ISEED( 4 ), NFAIL
      EXTERNAL         TPOTRF, TPOSV, TGETRF, TGESV, TGEQRF, TGELS,
     $                 TTYPES, TGEMM
      DATA             ISEED / 1, 7, 13, 2023 /
*
      NFAIL = 0
      CALL TPOTRF( 37, A, AF, R, LDA, ISEED, NFAIL )
      CALL TPOSV( 41, 3, A, AF, B, X, LDA, ISEED, NFAIL )
      CALL TGETRF( 50, 29, A, AF, R, LDA, IPIV, ISEED, NFAIL )
      CALL TGETRF( 29, 45, A, AF, R, LDA, IPIV, ISEED, NFAIL )
      CALL TGESV( 43, 2, A, AF, B, X, LDA, IPIV, ISEED, NFAIL )
      CALL TGEQRF( 53, 31, A, AF, R, LDA, TAU, WORK, ISEED, NFAIL )
      CALL TGELS( 57, 23, 3, A, AF, B, X, LDA, WORK, ISEED, NFAIL )
      CALL TTYPES( 37, ISEED, NFAIL )
      CALL TGEMM( ISEED, NFAIL )
      IF( NFAIL.GT.0 ) THEN
         WRITE( *, '(A,I3,A)' ) ' legacy.f:', NFAIL, ' check(s) failed'
         STOP 1
      END IF
      WRITE( *, '(A)' ) ' legacy.f: all routines passed'
      END
*
*     REPORT prints one line for ROUTN and counts a failure when the
*     scaled residual RATIO is not below 30 or INFO differs from IWANT.
      SUBROUTINE REPORT( ROUTN, RATIO, INFO, IWANT, NFAIL )
      CHARACTER*(*)    ROUTN
      DOUBLE PRECISION RATIO
      INTEGER          INFO, IWANT, NFAIL
      IF( RATIO.LT.30.0D0 .AND. INFO.EQ.IWANT ) THEN
         WRITE( *, '(A,A,A,1P,E10.3)' ) ' PASS ', ROUTN, ' ratio ',
     $      RATIO
      ELSE
         WRITE( *, '(A,A,A,1P,E10.3,A,I5,A,I5)' ) ' FAIL ', ROUTN,
     $      ' ratio ', RATIO, ' INFO ', INFO, ' expected ', IWANT
         NFAIL = NFAIL + 1
      END IF
      END
*
*     A random M-by-N matrix, uniform on (-1,1), in A(LDA,*).
      SUBROUTINE RANDM( M, N, A, LDA, ISEED )
      INTEGER          M, N, LDA, ISEED( 4 ), J
      DOUBLE PRECISION A( LDA, * )
      EXTERNAL         DLARNV
      DO 10 J = 1, N
         CALL DLARNV( 2, ISEED, M, A( 1, J ) )
   10 CONTINUE
      END
*
*     A symmetric positive definite N-by-N matrix G*G**T + N*I.
      SUBROUTINE RANDSP( N, A, G, LDA, ISEED )
      INTEGER          N, LDA, ISEED( 4 ), I, J, K
      DOUBLE PRECISION A( LDA, * ), G( LDA, * ), S
      CALL RANDM( N, N, G, LDA, ISEED )
      DO 30 J = 1, N
         DO 20 I = 1, N
            S = 0.0D0
            IF( I.EQ.J ) S = DBLE( N )
            DO 10 K = 1, N
               S = S + G( I, K )*G( J, K )
   10       CONTINUE
            A( I, J ) = S
   20    CONTINUE
   30 CONTINUE
      END
*
*     One-norm of the M-by-N matrix A.
      DOUBLE PRECISION FUNCTION ANORM1( M, N, A, LDA )
      INTEGER          M, N, LDA, I, J
      DOUBLE PRECISION A( LDA, * ), S
      ANORM1 = 0.0D0
      DO 20 J = 1, N
         S = 0.0D0
         DO 10 I = 1, M
            S = S + ABS( A( I, J ) )
   10    CONTINUE
         ANORM1 = MAX( ANORM1, S )
   20 CONTINUE
      END
*
*     Copies the M-by-N matrix A into B.
      SUBROUTINE COPYM( M, N, A, LDA, B, LDB )
      INTEGER          M, N, LDA, LDB, I, J
      DOUBLE PRECISION A( LDA, * ), B( LDB, * )
      DO 20 J = 1, N
         DO 10 I = 1, M
            B( I, J ) = A( I, J )
   10    CONTINUE
   20 CONTINUE
      END
*
*     ||B - A*X|| / (N*||A||*||X||*EPS) for the N-by-N matrix A.
      DOUBLE PRECISION FUNCTION SOLRES( N, NRHS, A, X, B, LDA )
      INTEGER          N, NRHS, LDA, I, J, K
      DOUBLE PRECISION A( LDA, * ), X( LDA, * ), B( LDA, * )
      DOUBLE PRECISION S, RN, EPS, ANORM1, DLAMCH
      EXTERNAL         ANORM1, DLAMCH
      EPS = DLAMCH( 'Precision' )
      RN = 0.0D0
      DO 30 J = 1, NRHS
         S = 0.0D0
         DO 20 I = 1, N
            DO 10 K = 1, N
               B( I, J ) = B( I, J ) - A( I, K )*X( K, J )
   10       CONTINUE
            S = S + ABS( B( I, J ) )
   20    CONTINUE
         RN = MAX( RN, S )
   30 CONTINUE
      SOLRES = RN / ( N*ANORM1( N, N, A, LDA )*
     $         ANORM1( N, NRHS, X, LDA )*EPS )
      END
*
*     DPOTRF, both triangles, and INFO on a non-SPD matrix.
      SUBROUTINE TPOTRF( N, A, AF, R, LDA, ISEED, NFAIL )
      INTEGER          N, LDA, ISEED( 4 ), NFAIL, INFO, I, J, K, IU
      DOUBLE PRECISION A( LDA, * ), AF( LDA, * ), R( LDA, * )
      DOUBLE PRECISION S, RN, ANORM1, DLAMCH
      CHARACTER        UPLO
      EXTERNAL         DPOTRF, ANORM1, DLAMCH
      CALL RANDSP( N, A, R, LDA, ISEED )
      DO 50 IU = 1, 2
         UPLO = 'L'
         IF( IU.EQ.2 ) UPLO = 'U'
         CALL COPYM( N, N, A, LDA, AF, LDA )
         CALL DPOTRF( UPLO, N, AF, LDA, INFO )
         DO 30 J = 1, N
            DO 20 I = 1, N
               S = 0.0D0
               DO 10 K = 1, MIN( I, J )
                  IF( IU.EQ.1 ) S = S + AF( I, K )*AF( J, K )
                  IF( IU.EQ.2 ) S = S + AF( K, I )*AF( K, J )
   10          CONTINUE
               R( I, J ) = A( I, J ) - S
   20       CONTINUE
   30    CONTINUE
         RN = ANORM1( N, N, R, LDA ) /
     $        ( N*ANORM1( N, N, A, LDA )*DLAMCH( 'Precision' ) )
         CALL REPORT( 'DPOTRF ' // UPLO, RN, INFO, 0, NFAIL )
*        Leading minor 20 not positive definite: INFO must be 20.
         CALL COPYM( N, N, A, LDA, AF, LDA )
         AF( 20, 20 ) = -1.0D0
         CALL DPOTRF( UPLO, N, AF, LDA, INFO )
         CALL REPORT( 'DPOTRF ' // UPLO // ' not SPD', 0.0D0, INFO,
     $                20, NFAIL )
   50 CONTINUE
      END
*
      SUBROUTINE TPOSV( N, NRHS, A, AF, B, X, LDA, ISEED, NFAIL )
      INTEGER          N, NRHS, LDA, ISEED( 4 ), NFAIL, INFO
      DOUBLE PRECISION A( LDA, * ), AF( LDA, * ), B( LDA, * ),
     $                 X( LDA, * ), SOLRES
      EXTERNAL         DPOSV, SOLRES
      CALL RANDSP( N, A, AF, LDA, ISEED )
      CALL RANDM( N, NRHS, B, LDA, ISEED )
      CALL COPYM( N, N, A, LDA, AF, LDA )
      CALL COPYM( N, NRHS, B, LDA, X, LDA )
      CALL DPOSV( 'Upper', N, NRHS, AF, LDA, X, LDA, INFO )
      CALL REPORT( 'DPOSV', SOLRES( N, NRHS, A, X, B, LDA ), INFO, 0,
     $             NFAIL )
      CALL COPYM( N, N, A, LDA, AF, LDA )
      AF( 9, 9 ) = -3.0D0
      CALL DPOSV( 'Upper', N, NRHS, AF, LDA, X, LDA, INFO )
      CALL REPORT( 'DPOSV not SPD', 0.0D0, INFO, 9, NFAIL )
      END
*
*     DGETRF on an M-by-N matrix: P*A = L*U, and a zero column.
      SUBROUTINE TGETRF( M, N, A, AF, R, LDA, IPIV, ISEED, NFAIL )
      INTEGER          M, N, LDA, IPIV( * ), ISEED( 4 ), NFAIL
      INTEGER          INFO, I, J, K, P, MN
      DOUBLE PRECISION A( LDA, * ), AF( LDA, * ), R( LDA, * )
      DOUBLE PRECISION S, T, RN, ANORM1, DLAMCH
      EXTERNAL         DGETRF, ANORM1, DLAMCH
      MN = MIN( M, N )
      CALL RANDM( M, N, A, LDA, ISEED )
      CALL COPYM( M, N, A, LDA, AF, LDA )
      CALL DGETRF( M, N, AF, LDA, IPIV, INFO )
*     R = P*A, applying the interchanges in order.
      CALL COPYM( M, N, A, LDA, R, LDA )
      DO 20 I = 1, MN
         P = IPIV( I )
         IF( P.LT.I .OR. P.GT.M ) INFO = -1000
         IF( P.LT.I .OR. P.GT.M ) P = I
         DO 10 J = 1, N
            T = R( I, J )
            R( I, J ) = R( P, J )
            R( P, J ) = T
   10    CONTINUE
   20 CONTINUE
      DO 50 J = 1, N
         DO 40 I = 1, M
            S = 0.0D0
            DO 30 K = 1, MIN( I, J, MN )
               IF( K.EQ.I ) S = S + AF( K, J )
               IF( K.LT.I ) S = S + AF( I, K )*AF( K, J )
   30       CONTINUE
            R( I, J ) = R( I, J ) - S
   40    CONTINUE
   50 CONTINUE
      RN = ANORM1( M, N, R, LDA ) /
     $     ( MAX( M, N )*ANORM1( M, N, A, LDA )*DLAMCH( 'Precision' ) )
      CALL REPORT( 'DGETRF', RN, INFO, 0, NFAIL )
*     Column 11 exactly zero: U(11,11) = 0 and INFO = 11.
      CALL COPYM( M, N, A, LDA, AF, LDA )
      DO 60 I = 1, M
         AF( I, 11 ) = 0.0D0
   60 CONTINUE
      CALL DGETRF( M, N, AF, LDA, IPIV, INFO )
      CALL REPORT( 'DGETRF singular', 0.0D0, INFO, 11, NFAIL )
      END
*
      SUBROUTINE TGESV( N, NRHS, A, AF, B, X, LDA, IPIV, ISEED, NFAIL )
      INTEGER          N, NRHS, LDA, IPIV( * ), ISEED( 4 ), NFAIL
      INTEGER          INFO, I
      DOUBLE PRECISION A( LDA, * ), AF( LDA, * ), B( LDA, * ),
     $                 X( LDA, * ), SOLRES
      EXTERNAL         DGESV, SOLRES
      CALL RANDM( N, N, A, LDA, ISEED )
      CALL RANDM( N, NRHS, B, LDA, ISEED )
      CALL COPYM( N, N, A, LDA, AF, LDA )
      CALL COPYM( N, NRHS, B, LDA, X, LDA )
      CALL DGESV( N, NRHS, AF, LDA, IPIV, X, LDA, INFO )
      CALL REPORT( 'DGESV', SOLRES( N, NRHS, A, X, B, LDA ), INFO, 0,
     $             NFAIL )
      CALL COPYM( N, N, A, LDA, AF, LDA )
      DO 10 I = 1, N
         AF( I, 17 ) = 0.0D0
   10 CONTINUE
      CALL DGESV( N, NRHS, AF, LDA, IPIV, X, LDA, INFO )
      CALL REPORT( 'DGESV singular', 0.0D0, INFO, 17, NFAIL )
      END
*
*     DGEQRF: Q**T*A computed by DORMQR from the returned reflectors
*     must be R above the diagonal and zero below it.
      SUBROUTINE TGEQRF( M, N, A, AF, R, LDA, TAU, WORK, ISEED, NFAIL )
      INTEGER          M, N, LDA, ISEED( 4 ), NFAIL, INFO, I, J, LW
      DOUBLE PRECISION A( LDA, * ), AF( LDA, * ), R( LDA, * ),
     $                 TAU( * ), WORK( * ), RN, ANORM1, DLAMCH
      EXTERNAL         DGEQRF, DORMQR, ANORM1, DLAMCH
      LW = 8192
      CALL RANDM( M, N, A, LDA, ISEED )
      CALL COPYM( M, N, A, LDA, AF, LDA )
      CALL DGEQRF( M, N, AF, LDA, TAU, WORK, LW, INFO )
      CALL REPORT( 'DGEQRF info', 0.0D0, INFO, 0, NFAIL )
      CALL COPYM( M, N, A, LDA, R, LDA )
      CALL DORMQR( 'Left', 'Transpose', M, N, MIN( M, N ), AF, LDA,
     $             TAU, R, LDA, WORK, LW, INFO )
      DO 20 J = 1, N
         DO 10 I = 1, M
            IF( I.LE.J ) R( I, J ) = R( I, J ) - AF( I, J )
   10    CONTINUE
   20 CONTINUE
      RN = ANORM1( M, N, R, LDA ) /
     $     ( M*ANORM1( M, N, A, LDA )*DLAMCH( 'Precision' ) )
      CALL REPORT( 'DGEQRF', RN, INFO, 0, NFAIL )
      END
*
*     DGELS, least squares: the residual is orthogonal to A's columns.
      SUBROUTINE TGELS( M, N, NRHS, A, AF, B, X, LDA, WORK, ISEED,
     $                  NFAIL )
      INTEGER          M, N, NRHS, LDA, ISEED( 4 ), NFAIL, INFO, I, J, K
      DOUBLE PRECISION A( LDA, * ), AF( LDA, * ), B( LDA, * ),
     $                 X( LDA, * ), WORK( * ), S, RN, ANORM1, DLAMCH
      EXTERNAL         DGELS, ANORM1, DLAMCH
      CALL RANDM( M, N, A, LDA, ISEED )
      CALL RANDM( M, NRHS, B, LDA, ISEED )
      CALL COPYM( M, N, A, LDA, AF, LDA )
      CALL COPYM( M, NRHS, B, LDA, X, LDA )
      CALL DGELS( 'No transpose', M, N, NRHS, AF, LDA, X, LDA, WORK,
     $            8192, INFO )
*     AF(1:M, 1:NRHS) := B - A*X, then RN = ||A**T * AF||.
      DO 30 J = 1, NRHS
         DO 20 I = 1, M
            S = B( I, J )
            DO 10 K = 1, N
               S = S - A( I, K )*X( K, J )
   10       CONTINUE
            AF( I, J ) = S
   20    CONTINUE
   30 CONTINUE
      RN = 0.0D0
      DO 60 J = 1, NRHS
         DO 50 K = 1, N
            S = 0.0D0
            DO 40 I = 1, M
               S = S + A( I, K )*AF( I, J )
   40       CONTINUE
            RN = MAX( RN, ABS( S ) )
   50    CONTINUE
   60 CONTINUE
      RN = RN / ( MAX( M, N, NRHS )*ANORM1( M, N, A, LDA )*
     $     ANORM1( M, NRHS, B, LDA )*DLAMCH( 'Precision' ) )
      CALL REPORT( 'DGELS', RN, INFO, 0, NFAIL )
      END
*
*     The other types on one N (N + 8 <= 45): ZPOTRF + ZPOTRS, CGETRF +
*     CGETRS ('C'), SGEQRF + SORGQR, each checked in its own precision.
      SUBROUTINE TTYPES( N, ISEED, NFAIL )
      INTEGER          N, ISEED( 4 ), NFAIL
      INTEGER          LD, NM
      PARAMETER        ( LD = 50, NM = 45 )
      COMPLEX*16       ZA( LD, NM ), ZF( LD, NM ), ZB( LD, 2 ),
     $                 ZX( LD, 2 ), ZS
      COMPLEX          CA( LD, NM ), CF( LD, NM ), CB( LD, 2 ),
     $                 CX( LD, 2 ), CS
      REAL             SA( LD, NM ), SF( LD, NM ), SQ( LD, NM ),
     $                 STAU( NM ), SWORK( 4096 ), SS, SEPS, SLAMCH
      INTEGER          IPIV( NM ), INFO, I, J, K, M
      DOUBLE PRECISION RN, XN, AN, C, DLAMCH
      EXTERNAL         DLAMCH, SLAMCH, ZLARNV, CLARNV, SLARNV,
     $                 ZPOTRF, ZPOTRS, CGETRF, CGETRS, SGEQRF, SORGQR,
     $                 REPORT
*
*     ZPOTRF + ZPOTRS: A = G + G**H + 2N*I.
      DO 10 J = 1, N
         CALL ZLARNV( 2, ISEED, N, ZF( 1, J ) )
   10 CONTINUE
      DO 30 J = 1, N
         DO 20 I = 1, N
            ZA( I, J ) = ZF( I, J ) + DCONJG( ZF( J, I ) )
   20    CONTINUE
         ZA( J, J ) = DBLE( ZA( J, J ) ) + 2*N
   30 CONTINUE
      DO 50 J = 1, N
         DO 40 I = 1, N
            ZF( I, J ) = ZA( I, J )
   40    CONTINUE
   50 CONTINUE
      DO 60 J = 1, 2
         CALL ZLARNV( 2, ISEED, N, ZB( 1, J ) )
         CALL ZCOPY( N, ZB( 1, J ), 1, ZX( 1, J ), 1 )
   60 CONTINUE
      CALL ZPOTRF( 'L', N, ZF, LD, INFO )
      IF( INFO.EQ.0 ) CALL ZPOTRS( 'L', N, 2, ZF, LD, ZX, LD, INFO )
      RN = 0.0D0
      XN = 0.0D0
      AN = 0.0D0
      DO 90 J = 1, N
         C = 0.0D0
         DO 70 I = 1, N
            C = C + ABS( ZA( I, J ) )
   70    CONTINUE
         AN = MAX( AN, C )
   90 CONTINUE
      DO 120 J = 1, 2
         C = 0.0D0
         XN = 0.0D0
         DO 110 I = 1, N
            ZS = ZB( I, J )
            DO 100 K = 1, N
               ZS = ZS - ZA( I, K )*ZX( K, J )
  100       CONTINUE
            C = C + ABS( ZS )
  110    CONTINUE
         RN = MAX( RN, C )
  120 CONTINUE
      DO 140 J = 1, 2
         C = 0.0D0
         DO 130 I = 1, N
            C = C + ABS( ZX( I, J ) )
  130    CONTINUE
         XN = MAX( XN, C )
  140 CONTINUE
      CALL REPORT( 'ZPOTRF+ZPOTRS L', RN / ( N*AN*XN*
     $             DLAMCH( 'Precision' ) ), INFO, 0, NFAIL )
*
*     CGETRF + CGETRS ('C'): A random + N*I, solve A**H*X = B.
      SEPS = SLAMCH( 'Precision' )
      DO 150 J = 1, N
         CALL CLARNV( 2, ISEED, N, CA( 1, J ) )
         CA( J, J ) = CA( J, J ) + N
         CALL CCOPY( N, CA( 1, J ), 1, CF( 1, J ), 1 )
  150 CONTINUE
      DO 160 J = 1, 2
         CALL CLARNV( 2, ISEED, N, CB( 1, J ) )
         CALL CCOPY( N, CB( 1, J ), 1, CX( 1, J ), 1 )
  160 CONTINUE
      CALL CGETRF( N, N, CF, LD, IPIV, INFO )
      IF( INFO.EQ.0 )
     $   CALL CGETRS( 'C', N, 2, CF, LD, IPIV, CX, LD, INFO )
      RN = 0.0D0
      XN = 0.0D0
      AN = 0.0D0
      DO 180 J = 1, N
         C = 0.0D0
         DO 170 I = 1, N
            C = C + ABS( CA( J, I ) )
  170    CONTINUE
         AN = MAX( AN, C )
  180 CONTINUE
      DO 210 J = 1, 2
         C = 0.0D0
         DO 200 I = 1, N
            CS = CB( I, J )
            DO 190 K = 1, N
               CS = CS - CONJG( CA( K, I ) )*CX( K, J )
  190       CONTINUE
            C = C + ABS( CS )
  200    CONTINUE
         RN = MAX( RN, C )
         C = 0.0D0
         DO 205 I = 1, N
            C = C + ABS( CX( I, J ) )
  205    CONTINUE
         XN = MAX( XN, C )
  210 CONTINUE
      CALL REPORT( 'CGETRF+CGETRS C', RN / ( N*AN*XN*SEPS ), INFO, 0,
     $             NFAIL )
*
*     SGEQRF + SORGQR on an (N+8)-by-N matrix.
      M = N + 8
      DO 220 J = 1, N
         CALL SLARNV( 2, ISEED, M, SA( 1, J ) )
         CALL SCOPY( M, SA( 1, J ), 1, SF( 1, J ), 1 )
  220 CONTINUE
      CALL SGEQRF( M, N, SF, LD, STAU, SWORK, 4096, INFO )
      DO 230 J = 1, N
         CALL SCOPY( M, SF( 1, J ), 1, SQ( 1, J ), 1 )
  230 CONTINUE
      IF( INFO.EQ.0 )
     $   CALL SORGQR( M, N, N, SQ, LD, STAU, SWORK, 4096, INFO )
*     ||A - Q*R||_1 / (M*||A||_1*EPS) and ||Q**T*Q - I||_1 / (M*EPS).
      RN = 0.0D0
      AN = 0.0D0
      DO 260 J = 1, N
         C = 0.0D0
         XN = 0.0D0
         DO 250 I = 1, M
            SS = SA( I, J )
            DO 240 K = 1, J
               SS = SS - SQ( I, K )*SF( K, J )
  240       CONTINUE
            C = C + ABS( SS )
            XN = XN + ABS( SA( I, J ) )
  250    CONTINUE
         RN = MAX( RN, C )
         AN = MAX( AN, XN )
  260 CONTINUE
      CALL REPORT( 'SGEQRF+SORGQR A-QR', RN / ( M*AN*SEPS ), INFO, 0,
     $             NFAIL )
      RN = 0.0D0
      DO 290 J = 1, N
         C = 0.0D0
         DO 280 I = 1, N
            SS = 0.0E0
            IF( I.EQ.J ) SS = -1.0E0
            DO 270 K = 1, M
               SS = SS + SQ( K, I )*SQ( K, J )
  270       CONTINUE
            C = C + ABS( SS )
  280    CONTINUE
         RN = MAX( RN, C )
  290 CONTINUE
      CALL REPORT( 'SORGQR Q**T*Q-I', RN / ( M*SEPS ), INFO, 0, NFAIL )
      END
*
*     ZGEMM ('T', 'C', complex ALPHA and BETA) and SGEMM ('N', 'T') on
*     M x N x K = 67 x 71 x 66 (over 64**3 multiply-adds: with devices
*     they run on tiles), against plain loops: the largest |C - loops|
*     over K*eps*(|ALPHA|*sum |A||B| + |BETA|*|C|), and the rows of C
*     past M must keep their value.
      SUBROUTINE TGEMM( ISEED, NFAIL )
      INTEGER          ISEED( 4 ), NFAIL
      INTEGER          M, N, K, LD
      PARAMETER        ( M = 67, N = 71, K = 66, LD = 72 )
      COMPLEX*16       ZA( LD, M ), ZB( LD, K ), ZC( LD, N ),
     $                 ZR( LD, N ), ZAL, ZBE, ZS
      REAL             SA( LD, K ), SB( LD, K ), SC( LD, N ),
     $                 SR( LD, N ), SAL, SBE, SLAMCH
      DOUBLE PRECISION RN, BND, SD, DLAMCH, RB( LD, N )
      INTEGER          I, J, L, NBAD
      EXTERNAL         ZGEMM, SGEMM, ZLARNV, SLARNV, DLAMCH, SLAMCH,
     $                 REPORT
*     Static, as legacy codes keep their large work arrays.
      SAVE             ZA, ZB, ZC, ZR, SA, SB, SC, SR, RB
*
*     ZGEMM: C = ALPHA*A**T*B**H + BETA*C, A K x M, B N x K.
      ZAL = ( 1.5D0, -0.5D0 )
      ZBE = ( -0.75D0, 0.25D0 )
      DO 10 J = 1, M
         CALL ZLARNV( 2, ISEED, K, ZA( 1, J ) )
   10 CONTINUE
      DO 20 J = 1, K
         CALL ZLARNV( 2, ISEED, N, ZB( 1, J ) )
   20 CONTINUE
      DO 40 J = 1, N
         CALL ZLARNV( 2, ISEED, M, ZC( 1, J ) )
         DO 30 I = M + 1, LD
            ZC( I, J ) = ( -7777.25D0, 0.0D0 )
   30    CONTINUE
   40 CONTINUE
      DO 70 J = 1, N
         DO 60 I = 1, M
            ZS = ( 0.0D0, 0.0D0 )
            BND = 0.0D0
            DO 50 L = 1, K
               ZS = ZS + ZA( L, I )*DCONJG( ZB( J, L ) )
               BND = BND + ABS( ZA( L, I ) )*ABS( ZB( J, L ) )
   50       CONTINUE
            ZR( I, J ) = ZAL*ZS + ZBE*ZC( I, J )
            RB( I, J ) = ABS( ZAL )*BND + ABS( ZBE )*ABS( ZC( I, J ) )
   60    CONTINUE
   70 CONTINUE
      CALL ZGEMM( 'T', 'C', M, N, K, ZAL, ZA, LD, ZB, LD, ZBE, ZC, LD )
      RN = 0.0D0
      NBAD = 0
      DO 90 J = 1, N
         DO 80 I = 1, M
            RN = MAX( RN, ABS( ZC( I, J ) - ZR( I, J ) ) / RB( I, J ) )
   80    CONTINUE
         DO 85 I = M + 1, LD
            IF( ZC( I, J ).NE.( -7777.25D0, 0.0D0 ) ) NBAD = NBAD + 1
   85    CONTINUE
   90 CONTINUE
      CALL REPORT( 'ZGEMM T C', RN / ( K*DLAMCH( 'Precision' ) ), NBAD,
     $             0, NFAIL )
*
*     SGEMM: C = ALPHA*A*B**T + BETA*C, A M x K, B N x K.
      SAL = -1.25E0
      SBE = 0.5E0
      DO 100 J = 1, K
         CALL SLARNV( 2, ISEED, M, SA( 1, J ) )
         CALL SLARNV( 2, ISEED, N, SB( 1, J ) )
  100 CONTINUE
      DO 120 J = 1, N
         CALL SLARNV( 2, ISEED, M, SC( 1, J ) )
         DO 110 I = M + 1, LD
            SC( I, J ) = -7777.25E0
  110    CONTINUE
  120 CONTINUE
      DO 150 J = 1, N
         DO 140 I = 1, M
            SD = 0.0D0
            BND = 0.0D0
            DO 130 L = 1, K
               SD = SD + DBLE( SA( I, L ) )*DBLE( SB( J, L ) )
               BND = BND + ABS( DBLE( SA( I, L ) )*DBLE( SB( J, L ) ) )
  130       CONTINUE
            SR( I, J ) = REAL( SAL*SD + SBE*DBLE( SC( I, J ) ) )
            RB( I, J ) = ABS( SAL )*BND + ABS( SBE*SC( I, J ) )
  140    CONTINUE
  150 CONTINUE
      CALL SGEMM( 'N', 'T', M, N, K, SAL, SA, LD, SB, LD, SBE, SC, LD )
      RN = 0.0D0
      NBAD = 0
      DO 170 J = 1, N
         DO 160 I = 1, M
            RN = MAX( RN, ABS( DBLE( SC( I, J ) - SR( I, J ) ) ) /
     $           RB( I, J ) )
  160    CONTINUE
         DO 165 I = M + 1, LD
            IF( SC( I, J ).NE.-7777.25E0 ) NBAD = NBAD + 1
  165    CONTINUE
  170 CONTINUE
      CALL REPORT( 'SGEMM N T', RN / ( K*SLAMCH( 'Precision' ) ), NBAD,
     $             0, NFAIL )
      END
