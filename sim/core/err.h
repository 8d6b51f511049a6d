/* err.h - the one error value every fallible core call fills in.
 *
 * Core functions return 0 on success and -1 on failure; on failure they
 * write a human-readable message into a caller-owned simt_err_t. The core
 * never prints, never exits and never longjmps: the caller (Lua binding,
 * CLI, test) decides what to do with the message.
 */
#ifndef SIMT_ERR_H
#define SIMT_ERR_H

#include <stdarg.h>
#include <stdint.h>

enum {
    SIMT_OK = 0,
    SIMT_E_USAGE,     /* bad argument from the caller (size, limit, name) */
    SIMT_E_ASM,       /* assembler: syntax or semantic error in a .s file */
    SIMT_E_MEM,       /* out-of-bounds / misaligned / out of device memory */
    SIMT_E_LAUNCH,    /* launch configuration exceeds a limit */
    SIMT_E_KERNEL,    /* kernel fault at run time (deadlock, stack overflow) */
    SIMT_E_TIMEOUT,   /* cycle limit reached */
    SIMT_E_NOMEM,     /* host allocation failed */
    SIMT_E_STOPPED    /* an observer asked the launch to stop (window closed) */
};

typedef struct simt_err {
    int code;         /* one of SIMT_E_*, SIMT_OK when nothing failed */
    char msg[1024];   /* full message, may span lines; always NUL-terminated */
} simt_err_t;

/* Fill err (if not NULL) with code and a printf-style message; returns -1
 * so that callers can write `return simt_errf(err, ...);`. */
int simt_errf(simt_err_t *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Range checks for description fields: 0 when lo <= v <= hi, else -1 with
 * "<what> field '<field>' = v is out of range (lo..hi)" (SIMT_E_USAGE).
 * what is "GPU" or "CPU". A NaN is never in range. */
int simt_check_u(const char *what, const char *field, uint64_t v, uint64_t lo, uint64_t hi,
                 simt_err_t *err);
int simt_check_f(const char *what, const char *field, double v, double lo, double hi,
                 simt_err_t *err);

/* Clear err to SIMT_OK and an empty message. */
void simt_err_clear(simt_err_t *err);

#endif
