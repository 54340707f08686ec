/* ffi-tests/test_fenv_devices.c: test_fenv.c with an emulated accelerator in every call
 * (HETLA_EMULATE_GPUS=1, HETLA_DEVICE_FORCE=1): tasks also run on the device's management thread,
 * and DGEMM runs on tiles, so its flags and its rounding under the caller's FE_UPWARD are checked
 * too. See test_fenv.c for the checks.
 *
 * hetla-expect: dpotrf=tiles dgetrf=tiles dgeqrf=tiles dgetrs=tiles dgemm=tiles
 * hetla-env: HETLA_CACHE_DIR=off OPENBLAS_NUM_THREADS=1 HETLA_EMULATE_GPUS=1 HETLA_DEVICE_FORCE=1
 * hetla-reference-env: OPENBLAS_NUM_THREADS=1
 */
#define FENV_DEVICES 1
#define FENV_NAME "test_fenv_devices"
#include "test_fenv.c"
