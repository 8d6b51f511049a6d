/* tools.c - commands that run a script of lessons/: `simtlab collective`
 * (lessons/lib/collective.lua), `fit` and `decode` (lessons/planner.lua);
 * see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "arch.h"

/* simtlab collective OP [--gpus N --arch P --link L --bytes SIZE --algo A
 * --json]: lessons/lib/collective.lua parses the rest. */
int cli_collective(int argc, char **argv)
{
    char path[1024], *args[64];
    cli_opts_t o;
    if (argc - 1 > (int)(sizeof args / sizeof args[0]))
        return cli_usage_error("%s", "too many arguments for 'collective'");
    if (arch_find_file("lessons/lib/collective.lua", path, sizeof path) != 0) {
        fprintf(stderr, "simtlab: cannot find lessons/lib/collective.lua (set SIMTLAB_HOME to "
                        "the simtlab directory)\n");
        return 1;
    }
    static char dir[1024];
    memset(&o, 0, sizeof o);
    args[0] = "collective";
    for (int k = 2; k < argc; k++) {
        args[k - 1] = argv[k];
        /* --png FILE: the sandbox writes into FILE's folder, the script
         * gets the bare name */
        if (strcmp(argv[k], "--png") == 0 && k + 1 < argc) {
            const char *slash = strrchr(argv[k + 1], '/');
            snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - argv[k + 1]) : 1,
                     slash ? argv[k + 1] : ".");
            if (o.out)
                return cli_usage_error("%s", "'collective' takes --png or --frames, not both");
            o.out = dir[0] ? dir : "/";
            args[k] = (char *)(slash ? slash + 1 : argv[k + 1]);
            k++;
        } else if (strcmp(argv[k], "--frames") == 0 && k + 1 < argc) {
            /* --frames DIR: the pictures go into DIR */
            if (o.out)
                return cli_usage_error("%s", "'collective' takes --png or --frames, not both");
            o.out = argv[k + 1];
            args[k] = argv[k + 1];
            k++;
        }
    }
    return cli_run_script(path, argc - 1, args, &o);
}

/* simtlab fit|decode ...: lessons/planner.lua with the same arguments
 * (--lang before or after them works: it is a run option). */
int cli_planner(int argc, char **argv)
{
    char path[1024], *args[64];
    cli_opts_t o;
    int n = 0;
    memset(&o, 0, sizeof o);
    if (arch_find_file("lessons/planner.lua", path, sizeof path) != 0) {
        fprintf(stderr, "simtlab: cannot find lessons/planner.lua (set SIMTLAB_HOME to the simtlab directory)\n");
        return 1;
    }
    if (argc > (int)(sizeof args / sizeof args[0]))
        return cli_usage_error("%s", "too many arguments");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc) {
            o.lang = argv[++i];
            if (strcmp(o.lang, "en") != 0 && strcmp(o.lang, "zh") != 0)
                return cli_usage_error("--lang is en or zh, got '%s'", o.lang);
        } else {
            args[n++] = argv[i];
        }
    }
    return cli_run_script(path, n, args, &o);
}
