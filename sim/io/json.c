/* json.c - JSON string literals (json.h). */
#include "json.h"

#include <string.h>

/* The escape for byte ch, or NULL when it stands for itself. */
static const char *escape(unsigned char ch, char buf[8])
{
    switch (ch) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    default:
        if (ch >= 0x20)
            return NULL;
        snprintf(buf, 8, "\\u%04x", ch);
        return buf;
    }
}

/* Byte c at position *n of out if it fits (keeping room for the NUL). */
static void put(char *out, size_t cap, size_t *n, char c)
{
    if (*n + 1 < cap)
        out[*n] = c;
    (*n)++;
}

size_t json_quote(char *out, size_t cap, const char *s, size_t len)
{
    size_t n = 0;
    char buf[8];
    put(out, cap, &n, '"');
    for (size_t i = 0; i < len; i++) {
        const char *e = escape((unsigned char)s[i], buf);
        if (!e)
            put(out, cap, &n, s[i]);
        else
            for (; *e; e++)
                put(out, cap, &n, *e);
    }
    put(out, cap, &n, '"');
    if (cap > 0)
        out[n < cap ? n : cap - 1] = '\0';
    return n;
}

void json_put_string(FILE *f, const char *s)
{
    char buf[8];
    fputc('"', f);
    for (; *s; s++) {
        const char *e = escape((unsigned char)*s, buf);
        if (e)
            fputs(e, f);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}
