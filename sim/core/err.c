#include "err.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

int simt_errf(simt_err_t *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void simt_err_clear(simt_err_t *err)
{
    if (err) {
        err->code = SIMT_OK;
        err->msg[0] = '\0';
    }
}

int simt_check_u(const char *what, const char *field, uint64_t v, uint64_t lo, uint64_t hi,
                 simt_err_t *err)
{
    if (v < lo || v > hi)
        return simt_errf(err, SIMT_E_USAGE, "%s field '%s' = %" PRIu64 " is out of range (%" PRIu64 "..%" PRIu64 ")",
                         what, field, v, lo, hi);
    return 0;
}

int simt_check_f(const char *what, const char *field, double v, double lo, double hi, simt_err_t *err)
{
    if (!(v >= lo && v <= hi))
        return simt_errf(err, SIMT_E_USAGE, "%s field '%s' = %g is out of range (%g..%g)", what, field, v, lo, hi);
    return 0;
}
