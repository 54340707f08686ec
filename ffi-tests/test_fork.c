/* ffi-tests/test_fork.c: fork safety. A thread keeps calling dgetrf_ (tiled) while the main
 * thread forks 100 times at varied moments; each child runs a tiled dgetrf_ of its own and must
 * finish (the parent's workers do not exist in the child, and any lock of the library may have
 * been held by one of the parent's threads at the moment of the fork). Every child has 60 s; a
 * hang fails the test. With 4 forks, a lock left held in the child (the saved BLAS thread count)
 * hung about one run in ten; 300 forks hung 7 children.
 *
 * OpenBLAS on its own threads hangs in this test (its fork handler waits for its busy threads),
 * so the reference run, which checks the test itself, uses one OpenBLAS thread.
 *
 * A child that has not finished after 60 s counts as hung: before it is killed, gdb (where
 * installed) prints every one of its threads' stacks on stdout, which run.sh shows for a failed
 * test, so that a rare hang in CI leaves the place it hung in the log.
 *
 * hetla-expect: dgetrf=tiles
 * hetla-reference-env: OPENBLAS_NUM_THREADS=1
 */
#include "common.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* dgetrf_ of a diagonally dominant n×n matrix: 1 when INFO = 0, no row was interchanged and
 * U(0,0) = A(0,0). */
static int lu_ok(int n) {
    double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    int32_t *ipiv = malloc(sizeof(int32_t) * (size_t)n);
    int32_t nn = n, info = -1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) AT(a, n, i, j) = (i == j) ? 2.0 * n : 1.0 / (1.0 + i + j);
    dgetrf_(&nn, &nn, a, &nn, ipiv, &info);
    /* Diagonally dominant: no interchanges, and U(0,0) = A(0,0). */
    int ok = info == 0 && ipiv[0] == 1 && AT(a, n, 0, 0) == 2.0 * n;
    free(a);
    free(ipiv);
    return ok;
}

/* Waits up to `secs` seconds for child `p`; a child still running then has its threads' stacks
 * printed (gdb, where installed) and is killed. Returns waitpid's status, or -1 for a hang. */
static int wait_child(pid_t p, int secs) {
    int st = 0;
    for (int waited = 0; waited < secs * 100; waited++) {
        pid_t r = waitpid(p, &st, WNOHANG);
        if (r == p) return st;
        if (r < 0) return -2;
        usleep(10000);
    }
    char cmd[200];
    printf("test_fork: child %d still running after %d s; its threads:\n", (int)p, secs);
    fflush(stdout);
    snprintf(cmd, sizeof cmd,
             "command -v gdb >/dev/null && gdb -p %d -batch -ex 'thread apply all bt' 2>&1 | grep -E '^(Thread|#)'",
             (int)p);
    if (system(cmd) != 0) printf("test_fork: (no gdb to print them)\n");
    fflush(stdout);
    kill(p, SIGKILL);
    waitpid(p, &st, 0);
    return -1;
}

static volatile int stop;

static void *busy(void *arg) {
    (void)arg;
    while (!stop) lu_ok(300);
    return NULL;
}

int main(void) {
    check(lu_ok(300), "dgetrf before any fork");
    pthread_t t;
    pthread_create(&t, NULL, busy, NULL);
    for (int f = 0; f < 100; f++) {
        usleep(1000 + (f * 7919) % 20000);
        pid_t p = fork();
        if (p == 0) {
            alarm(120); /* in case the parent is gone */
            _exit(lu_ok(300) && lu_ok(257) ? 0 : 3);
        }
        check(p > 0, "fork %d", f);
        if (p <= 0) continue;
        int st = wait_child(p, 60);
        check(st >= 0, "child %d: %s", f, st == -1 ? "hung (killed after 60 s)" : "waitpid failed");
        if (st < 0) continue;
        check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: %s %d", f, WIFSIGNALED(st) ? "killed by signal" : "exit status",
              WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    }
    stop = 1;
    pthread_join(t, NULL);
    check(lu_ok(300), "dgetrf in the parent after the forks");
    return finish("fork");
}
