/* main.c - the `simtlab` command line.
 *
 *   simtlab run SCRIPT.lua [args...]   run a Lua script with module simt
 *   simtlab asm FILE.s                 assemble and print a listing
 *   simtlab demo                       run lessons/demo.lua
 *   simtlab presets                    list the architecture presets
 *
 * Exit codes: 0 success, 1 the script or file failed, 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "arch.h"
#include "asm.h"
#include "lsimt.h"

#ifndef SIMT_VERSION
#define SIMT_VERSION "0.1.0"
#endif

static const char usage_text[] =
    "usage: simtlab COMMAND [ARGS...]\n"
    "\n"
    "simtlab is an educational, cycle-approximate SIMT GPU simulator.\n"
    "\n"
    "commands:\n"
    "  run SCRIPT.lua [ARGS...]  run a Lua script; the module 'simt' is a global\n"
    "                            (and require(\"simt\")); ARGS are in the table 'arg'\n"
    "  asm FILE.s                assemble a kernel and print its listing\n"
    "                            (pc, source line, instruction)\n"
    "  demo                      multiply two matrices on simulated GPUs and explain\n"
    "                            the result (runs lessons/demo.lua)\n"
    "  presets                   list the architecture presets (arch/*.lua)\n"
    "  -h, --help                show this help\n"
    "  --version                 show the version\n"
    "\n"
    "examples:\n"
    "  simtlab demo\n"
    "  simtlab run lessons/demo.lua\n"
    "  simtlab asm lessons/kernels/matmul_naive.s\n"
    "  simtlab run my_experiment.lua 256\n"
    "\n"
    "a script:\n"
    "  local g = simt.gpu{arch = \"edu-tiny\"}\n"
    "  local A = g:tensor{64, 64, init = \"random\", seed = 1}\n"
    "  print(A, g.desc.sms)\n"
    "\n"
    "files (presets, lessons, kernels) are searched in $SIMTLAB_HOME, then the\n"
    "current directory, then the source tree simtlab was built from.\n"
    "exit status: 0 ok, 1 the script or file failed, 2 bad usage.\n";

static int usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "simtlab: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (try 'simtlab --help')\n");
    return 2;
}

/* Message handler: turn the error into "message\ntraceback". */
static int msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            msg = lua_tostring(L, -1);
        else
            msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

static lua_State *new_state(void)
{
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "simtlab: cannot create a Lua state (out of memory)\n");
        return NULL;
    }
    luaL_openlibs(L);
    luaL_requiref(L, "simt", luaopen_simt, 1); /* global and package.loaded */
    lua_pop(L, 1);
    return L;
}

/* Run script with nargs arguments: arg[0] = script, arg[1..] = args,
 * also passed as the chunk's varargs (...), like the lua command. */
static int run_script(const char *script, int nargs, char **args)
{
    lua_State *L = new_state();
    int i, status;
    if (!L)
        return 1;
    lua_createtable(L, nargs, 2);
    lua_pushstring(L, "simtlab");
    lua_rawseti(L, -2, -1);
    lua_pushstring(L, script);
    lua_rawseti(L, -2, 0);
    for (i = 0; i < nargs; i++) {
        lua_pushstring(L, args[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setglobal(L, "arg");
    lua_pushcfunction(L, msghandler);
    status = luaL_loadfilex(L, script, "t");
    if (status == LUA_OK) {
        for (i = 0; i < nargs; i++)
            lua_pushstring(L, args[i]);
        status = lua_pcall(L, nargs, 0, 1);
    }
    if (status != LUA_OK) {
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "simtlab: %s\n", msg ? msg : "(error object is not a string)");
        lua_close(L);
        return 1;
    }
    lua_close(L);
    return 0;
}

/* Print pc, source line and instruction for every instruction of FILE. */
static int asm_listing(const char *path)
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
    for (pc = 0; pc < p.ncode; pc++) {
        for (i = 0; i < p.nlabels; i++)
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

static int list_presets(void)
{
    lua_State *L = new_state();
    lua_Integer i, n;
    if (!L)
        return 1;
    arch_push_presets(L);
    n = luaL_len(L, -1);
    for (i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        printf("%s\n", lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    lua_close(L);
    if (n == 0) {
        fprintf(stderr, "simtlab: no presets found (looked for arch/*.lua)\n");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd)
        return usage_error("%s", "missing command");
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("simtlab %s (%s)\n", SIMT_VERSION, LUA_RELEASE);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) {
        if (argc < 3)
            return usage_error("%s", "'run' needs a script: simtlab run SCRIPT.lua [ARGS...]");
        return run_script(argv[2], argc - 3, argv + 3);
    }
    if (strcmp(cmd, "asm") == 0) {
        if (argc != 3)
            return usage_error("%s", "'asm' needs one file: simtlab asm FILE.s");
        return asm_listing(argv[2]);
    }
    if (strcmp(cmd, "demo") == 0) {
        char path[1024];
        if (argc != 2)
            return usage_error("%s", "'demo' takes no arguments");
        if (arch_find_file("lessons/demo.lua", path, sizeof path) != 0) {
            fprintf(stderr, "simtlab: cannot find lessons/demo.lua (set SIMTLAB_HOME to the "
                            "simtlab directory)\n");
            return 1;
        }
        return run_script(path, 0, NULL);
    }
    if (strcmp(cmd, "presets") == 0) {
        if (argc != 2)
            return usage_error("%s", "'presets' takes no arguments");
        return list_presets();
    }
    if (cmd[0] == '-')
        return usage_error("unknown option '%s'", cmd);
    return usage_error("unknown command '%s'", cmd);
}
