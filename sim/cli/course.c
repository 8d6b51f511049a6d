/* course.c - the course's commands: `simtlab lessons [--check [-j N]]`,
 * `lesson N`, `check N FILE.s` and `check N --answer A`, each a run of
 * lessons/course.lua (see cli.h). */
#define _POSIX_C_SOURCE 200809L   /* readlink, fork */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch.h"

/* lessons/course.lua, the course's entry point (lessons/lib/runner.lua). */
static int course_path(char *path, size_t n)
{
    if (arch_find_file("lessons/course.lua", path, n) == 0)
        return 0;
    fprintf(stderr, "simtlab: cannot find lessons/course.lua (set SIMTLAB_HOME to the simtlab directory)\n");
    return -1;
}

/* simtlab lessons [--lang L] [--check [-j N]]: list the lessons, or run
 * every lesson headless with its claims and the exercises' reference
 * solutions, split over N processes (the i-th lesson goes to process i mod N:
 * `course.lua check --part J N`). */
int cli_lessons(int argc, char **argv)
{
    char path[1024], self[1024];
    const char *lang = NULL;
    int check = 0, jobs = 1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--check") == 0) {
            check = 1;
        } else if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc) {
            lang = argv[++i];
            if (strcmp(lang, "en") != 0 && strcmp(lang, "zh") != 0)
                return cli_usage_error("--lang is en or zh, got '%s'", lang);
        } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc && cli_is_number(argv[i + 1])) {
            jobs = atoi(argv[++i]);
            if (jobs < 1 || jobs > 8)
                return cli_usage_error("-j takes 1 to 8 processes, got '%s'", argv[i]);
        } else {
            return cli_usage_error("'lessons' takes --lang en|zh, --check and -j N, got '%s'", argv[i]);
        }
    }
    if (jobs > 1 && !check)
        return cli_usage_error("%s", "-j N goes with --check");
    if (course_path(path, sizeof path) != 0)
        return 1;
    cli_opts_t o;
    memset(&o, 0, sizeof o);
    o.lang = lang;
    /* checking the whole course runs simtlab's own code only, and may run
     * past the default 600 s under valgrind: a day instead */
    static char day[] = "86400";
    if (check)
        o.time_limit = day;
    if (!check) {
        char *args[1] = { "list" };
        return cli_run_script(path, 1, args, &o);
    }
    if (jobs == 1) {
        char *args[1] = { "check" };
        return cli_run_script(path, 1, args, &o);
    }
    /* N processes of `simtlab run course.lua check k k+N ...` */
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0) {
        fprintf(stderr, "simtlab: -j needs /proc/self/exe (Linux); run without -j\n");
        return 1;
    }
    self[len] = '\0';
    fflush(stdout);
    pid_t pids[8];
    for (int j = 0; j < jobs; j++) {
        char part[12], parts[12];
        char *args[16];
        int n = 0;
        args[n++] = self;
        args[n++] = "run";
        args[n++] = "--time-limit";
        args[n++] = day;
        if (lang) {
            args[n++] = "--lang";
            args[n++] = (char *)lang;
        }
        args[n++] = path;
        args[n++] = "check";
        args[n++] = "--part";
        snprintf(part, sizeof part, "%d", j);
        snprintf(parts, sizeof parts, "%d", jobs);
        args[n++] = part;
        args[n++] = parts;
        args[n] = NULL;
        pids[j] = fork();
        if (pids[j] == 0) {
            execv(self, args);
            _exit(127);
        }
        if (pids[j] < 0) {
            fprintf(stderr, "simtlab: cannot start a process: %s\n", strerror(errno));
            return 1;
        }
    }
    int rc = 0;
    for (int j = 0; j < jobs; j++) {
        int st = 0;
        if (waitpid(pids[j], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            rc = 1;
    }
    printf("simtlab lessons --check -j %d: %s\n", jobs, rc ? "FAILED" : "ok, every lesson and exercise passed");
    return rc;
}

/* simtlab check N --answer A [--json]: an exercise answered with a word or a
 * number (lessons/lib/grade_answers.lua), graded by running the simulator. */
static int course_answer(int argc, char **argv)
{
    char path[1024], *args[4];
    const char *n = NULL, *answer = NULL;
    int json = 0;
    cli_opts_t o;
    memset(&o, 0, sizeof o);
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--answer") == 0 && i + 1 < argc && !answer)
            answer = argv[++i];
        else if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--lang") == 0 && i + 1 < argc
                 && (strcmp(argv[i + 1], "en") == 0 || strcmp(argv[i + 1], "zh") == 0))
            o.lang = argv[++i];
        else if (!n && cli_is_number(argv[i]))
            n = argv[i];
        else
            return cli_usage_error("%s", "'check' with an answer: simtlab check N --answer ANSWER [--json] [--lang en|zh]");
    }
    if (!n || !answer || !answer[0] || strlen(answer) > 64)
        return cli_usage_error("%s", "'check' with an answer: simtlab check N --answer ANSWER [--json] (an answer of 1-64 characters)");
    arch_installed_only();   /* the grader from simtlab's own folders only, as for kernels */
    if (course_path(path, sizeof path) != 0)
        return 1;
    args[0] = "answer";
    args[1] = (char *)n;
    args[2] = (char *)answer;
    args[3] = "--json";
    return cli_run_script(path, 3 + json, args, &o);
}

/* simtlab lesson N [OPTIONS] [KNOB=VALUE ...]: one lesson on the stage
 * (lessons/course.lua). */
int cli_lesson(int argc, char **argv)
{
    char path[1024], *args[64];
    cli_opts_t o;
    cli_options_first(argc, argv, 2);   /* simtlab lesson 3 --lang zh works too */
    int i = cli_parse_opts(argc, argv, 2, 0, 1, &o);
    if (i < 0)
        return 2;
    if (i >= argc || !cli_is_number(argv[i]))
        return cli_usage_error("%s", "'lesson' needs a lesson number: simtlab lesson N [OPTIONS] [KNOB=VALUE ...] "
                                 "(see 'simtlab lessons')");
    if (argc - i + 1 > (int)(sizeof args / sizeof args[0]))
        return cli_usage_error("%s", "too many knobs");
    if (course_path(path, sizeof path) != 0)
        return 1;
    static char png[64];
    snprintf(png, sizeof png, "simtlab-lesson-%s.png", argv[i]);
    o.default_png = png;
    args[0] = "lesson";
    for (int k = i; k < argc; k++)
        args[k - i + 1] = argv[k];
    return cli_run_script(path, argc - i + 1, args, &o);
}

/* simtlab check N FILE.s [--json]: a kernel, graded; check N --answer A:
 * an answer (course_answer). */
int cli_check(int argc, char **argv)
{
    for (int k = 2; k < argc; k++)
        if (strcmp(argv[k], "--answer") == 0)
            return course_answer(argc, argv);
    char path[1024], *args[4];
    cli_opts_t o;
    int json = 0, k = 2;
    for (int j = 2; j < argc; j++)   /* --json may come anywhere */
        if (strcmp(argv[j], "--json") == 0)
            json = 1;
        else
            argv[k++] = argv[j];
    argc = k;
    cli_options_first(argc, argv, 2);    /* options before or after N FILE.s */
    int i = cli_parse_opts(argc, argv, 2, 0, 0, &o);
    if (i < 0)
        return 2;
    if (argc - i != 2 || !cli_is_number(argv[i]))
        return cli_usage_error("%s", "'check' needs a lesson number and a kernel: simtlab check N FILE.s [--json]");
    /* the course, the grader and the presets come from simtlab's own
     * folders ($SIMTLAB_HOME or the installation), never from the
     * current folder; the kernel named here is the one file read
     * from wherever the student keeps it */
    arch_installed_only();
    if (course_path(path, sizeof path) != 0)
        return 1;
    o.read_file = argv[i + 1];
    args[0] = "grade";
    args[1] = argv[i];
    args[2] = argv[i + 1];
    args[3] = "--json";
    return cli_run_script(path, 3 + json, args, &o);
}
