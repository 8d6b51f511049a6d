/* main.c - the `simtlab` command line.
 *
 *   simtlab run [OPTIONS] SCRIPT.lua [args...]   run a Lua script with module simt
 *   simtlab sweep --param F --values a,b,... [OPTIONS]  turn one knob, run a workload
 *   simtlab asm FILE.s                 assemble and print a listing
 *   simtlab lessons / lesson N / check N FILE.s   the course (lessons/course.lua)
 *   simtlab demo [STAGE OPTIONS]       the race of lessons/demo.lua on the stage
 *   simtlab show [OPTIONS] SCRIPT.lua  run a script with its launches on the stage
 *   simtlab collective OP [--gpus N ...]  a collective on a node of GPUs
 *   simtlab presets                    list the architecture presets
 *
 * Exit codes: 0 success, 1 the script or file failed, 2 bad usage.
 *
 * This file holds the usage text, the options and the dispatch; the
 * commands are in sim/cli/ (cli.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lua.h>

#include "arch.h"
#include "cli.h"
#include "lstage.h"

#ifndef SIMT_VERSION
#define SIMT_VERSION "0.1.0"
#endif

static const char usage_text[] =
    "usage: simtlab COMMAND [ARGS...]\n"
    "\n"
    "simtlab is an educational, cycle-approximate SIMT GPU simulator.\n"
    "\n"
    "commands:\n"
    "  run [OPTIONS] SCRIPT.lua [ARGS...]\n"
    "                            run a Lua script; the module 'simt' is a global\n"
    "                            (and require(\"simt\")); ARGS are in the table 'arg'\n"
    "  sweep --param FIELD --values A,B,... [OPTIONS]\n"
    "                            run a workload once per value of one GPU field,\n"
    "                            check each result, print a table (lessons/lib/sweep.lua)\n"
    "  asm FILE.s                assemble a kernel and print its listing\n"
    "                            (pc, source line, instruction)\n"
    "  demo [STAGE OPTIONS]      one CPU core races two simulated GPUs on a matrix\n"
    "                            multiply, in a window (lessons/demo.lua); with no\n"
    "                            display it draws off-screen: simtlab-demo.png + text\n"
    "  show [OPTIONS] SCRIPT.lua [ARGS...]\n"
    "                            run a script with its launches on the stage (a window,\n"
    "                            or headless); results and cycles are the same as 'run'\n"
    "  lessons [--lang en|zh] [--check [-j N]]\n"
    "                            list the course's lessons; --check runs every lesson\n"
    "                            headless with its claims and the exercises' reference\n"
    "                            solutions (in N processes)\n"
    "  lesson N [STAGE OPTIONS] [KNOB=VALUE ...] [--charts]\n"
    "                            lesson N on the stage (window, or headless: a PNG +\n"
    "                            text); PageDown / Space next step, PageUp back;\n"
    "                            --charts: its charts as PNGs in the --out folder\n"
    "  check N FILE.s [--json]   grade your kernel for lesson N's exercise: correct\n"
    "                            (hidden cases too), sound (the kernel checker), cheap\n"
    "                            enough (its budget); exit 0 when it passes. FILE.s may be\n"
    "                            anywhere; the course, grader and presets come only from\n"
    "                            simtlab's own folders or $SIMTLAB_HOME\n"
    "  check N --answer A [--json]\n"
    "                            an exercise answered with a word or a number (9, 11-15),\n"
    "                            graded by running the simulator\n"
    "  presets [--json|--names]  the architecture presets as a table (arch/*.lua):\n"
    "                            SMs, clock, peaks, memory, power, price, sources\n"
    "                            (--names: one name a line)\n"
    "  collective OP [--gpus N] [--arch P] [--link L] [--bytes SIZE] [--algo A] [--json]\n"
    "      [--links] [--png FILE | --frames DIR]\n"
    "                            a collective (allreduce, reduce_scatter, all_gather,\n"
    "                            broadcast) on N simulated GPUs joined by L (nvlink,\n"
    "                            nvlink2-4, nvlink-ring, pcie4/5, pcie4/5-host); A: ring,\n"
    "                            tree, ps; SIZE: 64K, a list 1K,1M or a range 1K:16M.\n"
    "                            Time, algbw and busbw as nccl-tests define them, result\n"
    "                            checked (--json: time_s, algbw_gbs, busbw_gbs); --links:\n"
    "                            every link's use; --png/--frames: pictures of the node\n"
    "  fit MODEL [--gpu P] [--train|--infer] [--optimizer adamw|adam8bit|sgd]\n"
    "      [--precision fp32|bf16-mixed|bf16|fp16] [--weights int8|int4] [--batch B]\n"
    "      [--seq S] [--checkpointing] [--attention flash|eager] [--json]\n"
    "                            will MODEL fit on P? an itemised memory ledger with\n"
    "                            formulas and sources (lessons/lib/fit.lua); MODEL:\n"
    "                            gpt2-124m gpt2-xl llama2-7b llama3-8b llama2-70b or\n"
    "                            a JSON object {\"layers\": 32, \"hidden\": 4096, ...}\n"
    "  decode MODEL --gpu P [--batch B] [--precision fp16|bf16|int8|int4]\n"
    "      [--context T] [--json]\n"
    "                            tokens per second: one layer's real kernels on the\n"
    "                            full simulated GPU, x layers (lessons/lib/decode.lua)\n"
    "  -h, --help                this help (--lang zh: in Chinese); also after a command\n"
    "  --version                 show the version\n"
    "\n"
    ;

/* The rest of the help (one string literal may hold at most 4095
 * characters in ISO C). */
static const char usage_text2[] =
    "GPU options (run, show and sweep): they win over the script's own numbers; every\n"
    "simt.gpu{...} applies them last (a script sees them in simt.overrides):\n"
    "  --arch NAME               use preset NAME (see 'presets') instead of the script's\n"
    "  --sms N                   number of SMs\n"
    "  --dram-gbps X             DRAM bandwidth in GB/s\n"
    "  --clock-mhz X             core clock in MHz\n"
    "  --set FIELD=VALUE         any GPU field (names as in simt.gpu{}.desc); repeatable;\n"
    "                            VALUE is a number, a word (sched=gto) or a,b,c\n"
    "run options:\n"
    "  --stats FILE.csv|FILE.json  record every launch (kernel, gpu, grid, block, cluster, every\n"
    "                            statistic) and write them when the script ends\n"
    "  --trace FILE.json         write a Perfetto/Chrome trace of every launch\n"
    "                            (open it in https://ui.perfetto.dev)\n"
    "  --trace-every N           trace counter samples every N cycles (default 100, 0: none)\n"
    "  --out DIR                 the folder where the script's simt.save_csv, save_json and\n"
    "                            chart{path=} write (default: simtlab-out/ beside the script)\n"
    "  --read-dir DIR            a folder the script may read kernels and presets from, besides\n"
    "                            the project's own, the script's folder and below (repeatable)\n"
    "  --time-limit SECONDS      stop the script after this much wall-clock time (default 600\n"
    "                            without a window; none in a window, where lessons wait for you)\n"
    "  --max-instructions N      stop the script after N Lua instructions (simulated and\n"
    "                            reference work counts too; default 1e10)\n"
    "  --max-memory MB           cap on the memory the script causes: Lua, tensors, GPUs\n"
    "                            (default 4096)\n"
    "  --unsafe                  give the script the full Lua libraries (files, os.execute);\n"
    "                            without it scripts run in a sandbox: files only through simt\n"
    "                            (writes into --out DIR, reads from the folders above), no os or\n"
    "                            package, require only from lessons/lib and the script's\n"
    "                            folder, limits on run time and memory\n"
    "  --lang en|zh              the language of lessons and the window (default: from\n"
    "                            LC_ALL / LANG, zh* gives Chinese; the window remembers L)\n";
static const char usage_text3[] =
    "stage options (show, demo and lesson):\n"
    "  --headless                draw off-screen even where there is a display\n"
    "  --screenshot FILE.png     write the last frame as a PNG\n"
    "  --frames DIR              headless: write every frame as DIR/frame-NNNNNN.png ...\n"
    "  --every N                 ... or every Nth frame\n"
    "  --auto SECONDS            every wait goes on by itself after SECONDS (a projector)\n"
    "  SIMTLAB_WINDOW=1024x600 and SIMTLAB_THEME=dark set the picture's size and theme\n"
    "  (show also takes the run options above)\n"
    "keys in the window (H or F1 shows them too):\n"
    "  Space pause / go on       Right one step (paused)   Left look back (paused)\n"
    "  Up / Down faster / slower (remembered)\n"
    "  [ / ] half / double SMs   , / . half / double memory bandwidth (the script\n"
    "                            decides what to run again)   R run again\n"
    "  PageDown / PageUp next / previous step (during a run too)   P screenshot\n"
    "  L English / 中文   T light / dark   + / - zoom   Tab details   Q, Esc quit\n"
    ;
static const char usage_text4[] =
    "sweep options:\n"
    "  --param FIELD             the GPU field to change (sms, dram_gbps, clock_mhz, ...)\n"
    "  --values A,B,...          its values, in order\n"
    "  --workload NAME           matmul_naive, matmul_naive_T, matmul_tiled16 (default),\n"
    "                            matmul_tiled32, matmul_reg64, matmul_rect, vecadd\n"
    "  --size N                  matrix size n (or vector length); default 64\n"
    "  --out FILE.csv            write one row per value\n"
    "  --png FILE.png            draw time against the value (a log axis for wide ranges)\n"
    "  (--arch defaults to edu-tiny; --sms/--set fix the other fields)\n"
    "\n"
    "examples:\n"
    "  simtlab lesson 1\n"
    "  simtlab lesson 7 --lang zh\n"
    "  simtlab check 7 lessons/exercises/07_bank_conflicts.s\n"
    "  simtlab demo\n"
    "  simtlab demo --headless --screenshot race.png\n"
    "  simtlab show --arch h200 --sms 16 lessons/demo.lua 256\n"
    "  simtlab run lessons/demo.lua\n"
    "  simtlab run --arch h200 --sms 16 --stats runs.csv my_experiment.lua\n"
    "  simtlab run --trace out.json lessons/demo.lua\n"
    "  simtlab sweep --arch h200 --param sms --values 1,2,4,8,16,33,66,132 \\\n"
    "                --workload matmul_tiled16 --size 256 --out sweep.csv --png sweep.png\n"
    "  simtlab asm lessons/kernels/matmul_naive.s\n"
    "\n"
    "a script:\n"
    "  local g = simt.gpu{arch = \"edu-tiny\"}\n"
    "  local A = g:tensor{64, 64, init = \"random\", seed = 1}\n"
    "  print(A, g.desc.sms)\n"
    "\n"
    "files (presets, lessons, kernels) are searched in $SIMTLAB_HOME, then the\n"
    "current directory, then the source tree simtlab was built from.\n"
    "exit status: 0 ok, 1 the script or file failed, 2 bad usage.\n";

#include "help_zh.h"

int cli_usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "simtlab: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (try 'simtlab --help')\n");
    return 2;
}

int cli_ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* The whole number text s (like "1e10" or "4096") if it lies in [lo, hi],
 * else 0. */
uint64_t cli_parse_count(const char *s, double lo, double hi)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (!end || *end || !s[0] || !(v >= lo && v <= hi) || v != (double)(uint64_t)v)
        return 0;
    return (uint64_t)v;
}

/* The options' values that must be numbers, file names or words of a
 * kind: 0, or -1 after a usage message naming the option. */
static int check_values(const cli_opts_t *o)
{
    if (o->time_limit) {
        char *end = NULL;
        double t = strtod(o->time_limit, &end);
        if (!end || *end || !(t > 0) || t > 1e6) {
            cli_usage_error("--time-limit needs a number of seconds (0 < s <= 1e6), got '%s'", o->time_limit);
            return -1;
        }
    }
    if (o->max_instructions && cli_parse_count(o->max_instructions, 1, 1e15) == 0) {
        cli_usage_error("--max-instructions needs a whole number from 1 to 1e15, got '%s'", o->max_instructions);
        return -1;
    }
    if (o->max_memory && cli_parse_count(o->max_memory, 1, 1 << 24) == 0) {
        cli_usage_error("--max-memory needs a whole number of MB from 1 to 16777216, got '%s'", o->max_memory);
        return -1;
    }
    if (o->stats && !cli_ends_with(o->stats, ".csv") && !cli_ends_with(o->stats, ".json")) {
        cli_usage_error("--stats needs a file name ending in .csv or .json, got '%s'", o->stats);
        return -1;
    }
    if (o->lang && strcmp(o->lang, "en") != 0 && strcmp(o->lang, "zh") != 0) {
        cli_usage_error("--lang is en or zh, got '%s'", o->lang);
        return -1;
    }
    if (o->screenshot && !cli_ends_with(o->screenshot, ".png")) {
        cli_usage_error("--screenshot needs a file name ending in .png, got '%s'", o->screenshot);
        return -1;
    }
    if (o->every && (atoi(o->every) < 1 || strspn(o->every, "0123456789") != strlen(o->every))) {
        cli_usage_error("--every needs a whole number >= 1, got '%s'", o->every);
        return -1;
    }
    if (o->auto_s) {
        char *end = NULL;
        double t = strtod(o->auto_s, &end);
        if (!end || *end || !(t >= 1) || t > 3600) {
            cli_usage_error("--auto needs a number of seconds from 1 to 3600, got '%s'", o->auto_s);
            return -1;
        }
    }
    if (o->every && !o->frames) {
        cli_usage_error("%s", "--every needs --frames DIR");
        return -1;
    }
    return 0;
}

/* Parse options from argv[i]: for `run` up to the first argument that is
 * not an option (returned: the script's index), for `sweep` all of them
 * (returned: argc). Prints the problem and returns -1 on bad usage. */
int cli_parse_opts(int argc, char **argv, int i, int sweep, int stage, cli_opts_t *o)
{
    static const struct {
        const char *opt, *field;   /* shortcut option -> GPU field */
    } shortcuts[] = { { "--sms", "sms" }, { "--dram-gbps", "dram_gbps" },
                      { "--clock-mhz", "clock_mhz" } };
    memset(o, 0, sizeof *o);
    o->stage = stage;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *opt = argv[i], **slot = NULL;
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        size_t k;
        int shortcut = -1;
        for (k = 0; k < sizeof shortcuts / sizeof shortcuts[0]; k++)
            if (strcmp(opt, shortcuts[k].opt) == 0)
                shortcut = (int)k;
        if (strcmp(opt, "--unsafe") == 0 && !sweep) {
            o->unsafe = 1;          /* a flag: takes no value */
            continue;
        }
        if (strcmp(opt, "--headless") == 0 && stage) {
            o->headless = 1;
            continue;
        }
        if (strcmp(opt, "--arch") == 0) slot = &o->arch;
        else if (strcmp(opt, "--lang") == 0 && !sweep) slot = &o->lang;
        else if (strcmp(opt, "--screenshot") == 0 && stage) slot = &o->screenshot;
        else if (strcmp(opt, "--frames") == 0 && stage) slot = &o->frames;
        else if (strcmp(opt, "--every") == 0 && stage) slot = &o->every;
        else if (strcmp(opt, "--auto") == 0 && stage) slot = &o->auto_s;
        else if (strcmp(opt, "--stats") == 0 && !sweep) slot = &o->stats;
        else if (strcmp(opt, "--trace") == 0 && !sweep) slot = &o->trace;
        else if (strcmp(opt, "--trace-every") == 0 && !sweep) slot = &o->trace_every;
        else if (strcmp(opt, "--param") == 0 && sweep) slot = &o->param;
        else if (strcmp(opt, "--values") == 0 && sweep) slot = &o->values;
        else if (strcmp(opt, "--workload") == 0 && sweep) slot = &o->workload;
        else if (strcmp(opt, "--size") == 0 && sweep) slot = &o->size;
        else if (strcmp(opt, "--out") == 0) slot = &o->out;
        else if (strcmp(opt, "--time-limit") == 0 && !sweep) slot = &o->time_limit;
        else if (strcmp(opt, "--max-instructions") == 0 && !sweep) slot = &o->max_instructions;
        else if (strcmp(opt, "--max-memory") == 0 && !sweep) slot = &o->max_memory;
        else if (strcmp(opt, "--read-dir") == 0 && !sweep) {
            if (!val) {
                cli_usage_error("option '%s' needs a value", opt);
                return -1;
            }
            if (o->nread_dirs == SANDBOX_MAX_DIRS) {
                cli_usage_error("%s", "too many --read-dir options");
                return -1;
            }
            o->read_dir[o->nread_dirs++] = val;
            i++;
            continue;
        }
        else if (strcmp(opt, "--png") == 0 && sweep) slot = &o->png;
        else if (strcmp(opt, "--set") != 0 && shortcut < 0) {
            cli_usage_error("unknown option '%s'", opt);
            return -1;
        }
        if (!val) {
            cli_usage_error("option '%s' needs a value", opt);
            return -1;
        }
        i++;
        if (slot) {
            *slot = val;
            continue;
        }
        if (o->nsets == CLI_MAX_SETS) {
            cli_usage_error("%s", "too many --set options");
            return -1;
        }
        if (shortcut >= 0) {
            o->set[o->nsets] = shortcuts[shortcut].field;
            o->set_value[o->nsets++] = val;
        } else if (!strchr(val, '=') || val[0] == '=') {
            cli_usage_error("--set expects FIELD=VALUE, got '%s'", val);
            return -1;
        } else {
            o->set[o->nsets] = val;
            o->set_value[o->nsets++] = NULL;
        }
    }
    if (sweep && i < argc) {
        cli_usage_error("unexpected argument '%s' for 'sweep'", argv[i]);
        return -1;
    }
    return check_values(o) == 0 ? i : -1;
}

/* Move the options among argv[from..] (--flag, or --opt VALUE) before the
 * other arguments, keeping the order within each group. */
void cli_options_first(int argc, char **argv, int from)
{
    char *opts[128], *rest[128];
    int no = 0, nr = 0;
    if (argc - from > 128)
        return;
    for (int i = from; i < argc; i++) {
        if (strncmp(argv[i], "--", 2) == 0 && strcmp(argv[i], "--charts") != 0) {   /* --charts: the lesson's */
            int flag = strcmp(argv[i], "--headless") == 0 || strcmp(argv[i], "--unsafe") == 0;
            opts[no++] = argv[i];
            if (!flag && i + 1 < argc)
                opts[no++] = argv[++i];
        } else {
            rest[nr++] = argv[i];
        }
    }
    for (int i = 0; i < no; i++)
        argv[from + i] = opts[i];
    for (int i = 0; i < nr; i++)
        argv[from + no + i] = rest[i];
}

int cli_is_number(const char *s)
{
    return s[0] && strspn(s, "0123456789") == strlen(s) && strlen(s) < 6;
}

/* The help, in Chinese with --lang zh, or a Chinese locale without --lang. */
static int print_help(int argc, char **argv)
{
    const char *lang = lstage_lang_from_env();
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], "--lang") == 0)
            lang = argv[i + 1];
    int zh = strcmp(lang, "zh") == 0;
    fputs(zh ? usage_zh : usage_text, stdout);
    fputs(zh ? usage_zh2 : usage_text2, stdout);
    if (!zh) {
        fputs(usage_text3, stdout);
        fputs(usage_text4, stdout);
    }
    return 0;
}

/* -h or --help after a command (`simtlab fit --help`) asks for the help,
 * except among the arguments a script gets (after SCRIPT.lua). */
static int asks_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        size_t n = strlen(argv[i]);
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
        if (argv[i][0] != '-' && n > 4 && strcmp(argv[i] + n - 4, ".lua") == 0)
            return 0;
    }
    return 0;
}

static int run_command(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd)
        return cli_usage_error("%s", "missing command");
    /* --lang anywhere: `simtlab --lang zh lesson 3` is `simtlab lesson 3 --lang zh` */
    if (strcmp(cmd, "--lang") == 0 && argc > 3) {
        char *l = argv[1], *v = argv[2];
        memmove(argv + 1, argv + 3, (size_t)(argc - 3) * sizeof *argv);
        argv[argc - 2] = l;
        argv[argc - 1] = v;
        cmd = argv[1];
    }
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0
        || asks_help(argc, argv))
        return print_help(argc, argv);
    if (strcmp(cmd, "--version") == 0) {
        printf("simtlab %s (%s)\n", SIMT_VERSION, LUA_RELEASE);
        return 0;
    }
    if (strcmp(cmd, "run") == 0) {
        cli_opts_t o;
        int i = cli_parse_opts(argc, argv, 2, 0, 0, &o);
        if (i < 0)
            return 2;
        if (i >= argc)
            return cli_usage_error("%s", "'run' needs a script: simtlab run [OPTIONS] SCRIPT.lua "
                                     "[ARGS...]");
        return cli_run_script(argv[i], argc - i - 1, argv + i + 1, &o);
    }
    if (strcmp(cmd, "sweep") == 0) {
        cli_opts_t o;
        if (cli_parse_opts(argc, argv, 2, 1, 0, &o) < 0)
            return 2;
        return cli_run_sweep(&o);
    }
    if (strcmp(cmd, "asm") == 0) {
        if (argc != 3)
            return cli_usage_error("%s", "'asm' needs one file: simtlab asm FILE.s");
        return cli_asm_listing(argv[2]);
    }
    if (strcmp(cmd, "show") == 0) {
        cli_opts_t o;
        int i = cli_parse_opts(argc, argv, 2, 0, 1, &o);
        if (i < 0)
            return 2;
        if (i >= argc)
            return cli_usage_error("%s", "'show' needs a script: simtlab show [OPTIONS] SCRIPT.lua [ARGS...]");
        return cli_run_script(argv[i], argc - i - 1, argv + i + 1, &o);
    }
    if (strcmp(cmd, "demo") == 0) {
        char path[1024];
        cli_opts_t o;
        int i = cli_parse_opts(argc, argv, 2, 0, 1, &o);
        if (i < 0)
            return 2;
        if (i != argc)
            return cli_usage_error("'demo' takes only options, got '%s'", argv[i]);
        if (arch_find_file("lessons/demo.lua", path, sizeof path) != 0) {
            fprintf(stderr, "simtlab: cannot find lessons/demo.lua (set SIMTLAB_HOME to the "
                            "simtlab directory)\n");
            return 1;
        }
        o.default_png = "simtlab-demo.png";
        return cli_run_script(path, 0, NULL, &o);
    }
    if (strcmp(cmd, "lessons") == 0)
        return cli_lessons(argc, argv);
    if (strcmp(cmd, "lesson") == 0)
        return cli_lesson(argc, argv);
    if (strcmp(cmd, "check") == 0)
        return cli_check(argc, argv);
    if (strcmp(cmd, "collective") == 0)
        return cli_collective(argc, argv);
    if (strcmp(cmd, "fit") == 0 || strcmp(cmd, "decode") == 0)
        return cli_planner(argc, argv);
    if (strcmp(cmd, "presets") == 0) {
        if (argc == 3 && strcmp(argv[2], "--json") == 0)
            return cli_presets(1, 0);
        if (argc == 3 && strcmp(argv[2], "--names") == 0)
            return cli_presets(0, 1);
        if (argc != 2)
            return cli_usage_error("%s", "'presets' takes --json or --names");
        return cli_presets(0, 0);
    }
    if (cmd[0] == '-')
        return cli_usage_error("unknown option '%s'", cmd);
    return cli_usage_error("unknown command '%s'", cmd);
}

int main(int argc, char **argv)
{
    int rc = run_command(argc, argv);
    /* output that could not be written (a full disk, > /dev/full) is a
     * failure, not a success */
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "simtlab: error writing the output (disk full?)\n");
        return rc ? rc : 1;
    }
    return rc;
}
