/* json.h - JSON string literals, written once for every JSON simtlab writes
 * (the Perfetto trace here, the statistics exports in sim/script/export.c).
 *
 * A kernel, GPU or file name may hold any byte: json_quote writes it as a
 * quoted JSON string with ", \ and control characters escaped, so a name
 * with a quote or a newline cannot break the file around it. Bytes >= 0x80
 * are copied as they are (UTF-8 passes through).
 */
#ifndef SIMT_JSON_H
#define SIMT_JSON_H

#include <stddef.h>
#include <stdio.h>

/* Write s[0..len) as a quoted JSON string into out (cap bytes, always
 * NUL-terminated when cap > 0). Returns the length the whole literal needs,
 * quotes included, NUL not: when it is >= cap, out was cut short (call
 * again with a bigger buffer). */
size_t json_quote(char *out, size_t cap, const char *s, size_t len);

/* Write the NUL-terminated s as a quoted JSON string to f. */
void json_put_string(FILE *f, const char *s);

#endif
