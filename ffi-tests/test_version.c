/* ffi-tests/test_version.c: hetla_version() through hetla.h, and which library is in charge.
 *
 * hetla_version() must return the crate's version (run.sh passes it from Cargo.toml in
 * FFI_EXPECT_VERSION) as a NUL-terminated string that stays valid. The symbol is referenced
 * weakly, so the same program links without -lhetla (the preload build) and, run without hetla
 * (the reference mode), finds no such symbol; it also checks that dpotrf_ as the program sees it
 * is hetla's exactly when hetla is loaded.
 *
 * hetla-expect: dpotrf
 */
#include "common.h"

#pragma weak hetla_version

int main(void) {
    const char *want = getenv("FFI_EXPECT_VERSION");
    Dl_info info;
    int hetla_dpotrf = dladdr((void *)dpotrf_, &info) && info.dli_fname && strstr(info.dli_fname, "hetla");

    if (getenv("FFI_REFERENCE")) {
        check(hetla_version == NULL, "hetla_version resolves although hetla is not loaded");
        check(!hetla_dpotrf, "dpotrf_ resolves to hetla although hetla is not loaded");
    } else {
        check(hetla_version != NULL, "hetla_version does not resolve");
        check(hetla_dpotrf, "dpotrf_ does not resolve to libhetla (it is in %s)", info.dli_fname);
        if (hetla_version) {
            const char *v = hetla_version();
            check(v != NULL && want != NULL && strcmp(v, want) == 0, "hetla_version() = \"%s\", Cargo.toml says \"%s\"",
                  v ? v : "(null)", want ? want : "(unset)");
            check(v == hetla_version(), "hetla_version() returns a different pointer on a second call");
        }
    }
    /* One call so that the verbose line shows hetla handled it. */
    double a[4] = {4.0, 2.0, 2.0, 5.0};
    int n = 2, info_out = -1;
    dpotrf_("L", &n, a, &n, &info_out, 1);
    check(info_out == 0 && a[0] == 2.0 && a[1] == 1.0 && a[3] == 2.0, "dpotrf 2x2: INFO=%d L=[%g %g; . %g]", info_out,
          a[0], a[1], a[3]);
    return finish("test_version");
}
