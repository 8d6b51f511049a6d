/* listing.c - `simtlab asm FILE.s`: assemble and print a listing (see cli.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "asm.h"

/* Print pc, source line and instruction for every instruction of FILE. */
int cli_asm_listing(const char *path)
{
    isa_program_t p;
    simt_err_t err;
    uint32_t pc, i;
    char buf[256];
    memset(&p, 0, sizeof p);
    if (asm_assemble_file(path, &p, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("// kernel '%s' from %s\n", p.name, path);
    printf("// %u instructions, %u registers, %u predicates, %u bytes of shared memory\n",
           (unsigned)p.ncode, (unsigned)p.nregs, (unsigned)p.npreds, (unsigned)p.shared_bytes);
    printf("// params:");
    for (i = 0; i < p.nparams; i++)
        printf(" %s", p.params[i]);
    printf("%s\n", p.nparams ? "" : " (none)");
    printf("//  pc  line  instruction\n");
    /* the assembler defines labels in source order: their values never
     * decrease, so one walk prints them (a scan per pc was quadratic) */
    i = 0;
    for (pc = 0; pc < p.ncode; pc++) {
        for (; i < p.nlabels && p.labels[i].value <= pc; i++)
            if (p.labels[i].value == pc)
                printf("%s:\n", p.labels[i].name);
        asm_format_instr(&p, &p.code[pc], buf, sizeof buf);
        printf("%5u %5u  %s\n", (unsigned)pc, (unsigned)p.code[pc].line, buf);
    }
    for (i = 0; i < p.nlabels; i++) /* labels at the very end */
        if (p.labels[i].value == p.ncode)
            printf("%s:\n", p.labels[i].name);
    isa_program_free(&p);
    return 0;
}
