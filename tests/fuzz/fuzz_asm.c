/* fuzz_asm.c - libFuzzer target: the assembler on arbitrary text.
 *
 * Every input either assembles or fails with a message; neither may crash,
 * read out of bounds or hit undefined behaviour. Programs that assemble
 * are disassembled instruction by instruction (asm_format_instr), and the
 * error message must be a terminated string of sensible length. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    isa_program_t p;
    simt_err_t err;
    char text[256];
    simt_err_clear(&err);
    if (asm_assemble((const char *)data, size, "fuzz.s", &p, &err) != 0) {
        if (err.code == SIMT_OK || memchr(err.msg, '\0', sizeof err.msg) == NULL)
            abort();   /* a failure must say what failed */
        return 0;
    }
    for (uint32_t i = 0; i < p.ncode; i++)
        asm_format_instr(&p, &p.code[i], text, sizeof text);
    isa_program_free(&p);
    return 0;
}
