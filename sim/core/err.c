#include "err.h"

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
