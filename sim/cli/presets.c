/* presets.c - `simtlab presets [--json | --names]`: the architecture
 * presets as a table with the source of every figure (see cli.h). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include <lauxlib.h>

#include "arch.h"
#include "json.h"
#include "sandbox.h"

/* The source tags ("[spec]", "[meas]" ...; "~" after them when the comment
 * says the figure is an estimate) or "estimate" / "fitted" in comment c,
 * into out ("" when it names none). */
static void source_tags(const char *c, char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *b = strchr(c, '['); b && used + 2 < n; b = strchr(b + 1, '[')) {
        const char *e = strchr(b, ']');
        if (!e || e - b > 12)
            break;
        used += (size_t)snprintf(out + used, n - used, "%s%.*s", used ? " " : "", (int)(e - b + 1), b);
    }
    if (out[0] && strstr(c, "est") && used + 2 < n)   /* "[spec] ~1600 (est.)" */
        snprintf(out + used, n - used, "~");
    if (!out[0] && (strstr(c, "estimate") || strstr(c, "fitted")))
        snprintf(out, n, "%s", strstr(c, "estimate") ? "estimate" : "fitted");
}

/* The source of the figure `field` sets in preset file `path`: the tags of
 * the comment on its line, else of the comment lines just above the group of
 * fields it is in (a100.lua's Tensor Core rates), else "". */
static void preset_source(const char *path, const char *field, char *out, size_t n)
{
    char line[512], block[48] = "";
    size_t flen = strlen(field);
    FILE *f = fopen(path, "r");
    out[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        const char *p = line + strspn(line, " \t");
        if (strncmp(p, "--", 2) == 0) {          /* a comment line: remember its tags */
            char t[48];
            source_tags(p, t, sizeof t);
            if (t[0])
                snprintf(block, sizeof block, "%s", t);
            continue;
        }
        if (!*p || *p == '\n') {
            block[0] = '\0';
            continue;
        }
        if (strncmp(p, field, flen) != 0 || p[flen + strspn(p + flen, " \t")] != '=')
            continue;
        const char *c = strstr(p, "--");
        if (c)
            source_tags(c, out, n);
        if (!out[0])
            snprintf(out, n, "%s", block);
        break;
    }
    fclose(f);
}

/* the start of one preset's JSON object, up to its chip's name */
static void json_preset_head(int first, const char *name, int gpu, const char *chip)
{
    printf("%s\n  {\"name\": ", first ? "" : ",");
    json_put_string(stdout, name);
    printf(", \"gpu\": %s, \"chip\": ", gpu ? "true" : "false");
    json_put_string(stdout, chip);
}

/* simtlab presets [--json | --names]: every preset as a row (name, chip, SMs, clock,
 * peak FP32 / BF16 dense / FP8 dense, memory, bandwidth, TDP, price per
 * hour) with the source of each figure from the comment on its line in
 * arch/NAME.lua; "~" marks a figure the file calls an estimate. */
static const char *const preset_fields[] = { "sms", "clock_mhz", "fp32_lanes_per_sm", "tc_flops_per_clk_bf16",
                                              "tc_flops_per_clk_fp8", "mem_bytes", "dram_gbps", "tdp_watts",
                                              "price_per_hour" };
enum { NF = sizeof preset_fields / sizeof preset_fields[0] };

/* A CPU preset (kind = "cpu") in the same columns (SMs = cores; no Tensor
 * Cores), its figures read through simt.cpu; 0 when name is no CPU. */
static int print_cpu_preset(lua_State *L, lua_Integer i, const char *name, int json)
{
    static const char *const cf[] = { "cores", "clock_mhz", "simd_width", "fma_ports", "mem_bytes",
                                      "dram_gbps", "tdp_watts", "price_per_hour" };
    int top = lua_gettop(L), done = 0;
    if (luaL_loadstring(L, "return simt.cpu{arch = ...}.desc") == LUA_OK) {
        lua_pushstring(L, name);
        if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1)) {
            char vendor[128], price[16];
            double c[8];
            for (int k = 0; k < 8; k++) {
                lua_getfield(L, -1, cf[k]);
                c[k] = lua_tonumber(L, -1);
                lua_pop(L, 1);
            }
            lua_getfield(L, -1, "vendor_name");
            snprintf(vendor, sizeof vendor, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : name);
            lua_pop(L, 1);
            double cpu32 = c[0] * c[2] * c[3] * 2 * c[1] / 1e6;   /* FMA lanes x 2 FLOP x clock */
            snprintf(price, sizeof price, c[7] > 0 ? "%.2f" : "-", c[7]);
            if (json) {
                json_preset_head(i == 1, name, 0, vendor);
                printf(", \"cores\": %.0f, \"clock_mhz\": %.0f, \"fp32_tflops\": %.2f, \"memory_gb\": %.0f, "
                       "\"dram_gbps\": %.1f, \"tdp_watts\": %.0f, \"price_per_hour\": %s}", c[0], c[1], cpu32,
                       c[4] / 1e9, c[5], c[6], c[7] > 0 ? price : "null");
            } else {
                printf("%-11s %-36.36s %4.0f %6.0f %8.2f %8s %8s %5.0f %6.0f %5.0f %6s  %s\n", name, vendor,
                       c[0], c[1], cpu32, "-", "-", c[4] / 1e9, c[5], c[6], price,
                       "a CPU (SMs = cores): see the file's header");
            }
            done = 1;
        }
    }
    lua_settop(L, top);
    return done;
}

/* A GPU preset as one JSON object: its figures and their sources. */
static void print_gpu_json(lua_Integer i, const char *name, const gpu_desc_t *d, const double tf[3],
                           char src[NF][48])
{
    json_preset_head(i == 1, name, 1, d->vendor_name);
    printf(", \"sms\": %u, \"clock_mhz\": %.0f, "
           "\"fp32_tflops\": %.1f, \"bf16_dense_tflops\": %.1f, \"fp8_dense_tflops\": %.1f, \"memory_gb\": %.0f, "
           "\"dram_gbps\": %.0f, \"tdp_watts\": %.0f, \"price_per_hour\": ",
           d->sms, d->clock_mhz, tf[0], tf[1], tf[2], d->mem_bytes / 1e9, d->dram_gbps, d->tdp_watts);
    if (d->price_per_hour > 0)   /* null: no known price */
        printf("%.2f", d->price_per_hour);
    else
        printf("null");
    printf(", \"sources\": {");
    for (int k = 0; k < NF; k++) {
        printf("%s\"%s\": ", k ? ", " : "", preset_fields[k]);
        json_put_string(stdout, src[k]);
    }
    printf("}}");
}

/* A GPU preset as one row of the table: each figure as text, "~" after it
 * when its source is an estimate (the peaks take the marks of the fields
 * they are made of), then the distinct source tags. */
static void print_gpu_row(const char *name, const gpu_desc_t *d, const double tf[3], char src[NF][48])
{
    char v[9][16], tags[160] = "";
    size_t used = 0;
    const double val[9] = { d->sms, d->clock_mhz, tf[0], tf[1], tf[2], d->mem_bytes / 1e9, d->dram_gbps,
                            d->tdp_watts, d->price_per_hour };
    const int of[9][3] = { { 0, 0, 0 }, { 1, 1, 1 }, { 0, 1, 2 }, { 0, 1, 3 }, { 0, 1, 4 },
                           { 5, 5, 5 }, { 6, 6, 6 }, { 7, 7, 7 }, { 8, 8, 8 } };
    for (int k = 0; k < 9; k++) {
        int est = 0;
        for (int m = 0; m < 3; m++)
            est |= strchr(src[of[k][m]], '~') != NULL || strcmp(src[of[k][m]], "estimate") == 0;
        if ((k == 8 || (k >= 2 && k <= 4)) && val[k] <= 0)   /* no price known, no such unit */
            snprintf(v[k], sizeof v[k], "-");
        else
            snprintf(v[k], sizeof v[k], k >= 2 && k <= 4 ? "%.1f%s" : k == 8 ? "%.2f%s" : "%.0f%s", val[k],
                     est ? "~" : "");
    }
    for (int k = 0; k < NF; k++) {   /* the distinct tags, in field order, without "~" */
        char t[48];
        snprintf(t, sizeof t, "%.*s", (int)strcspn(src[k], "~"), src[k]);
        if (t[0] && strcmp(t, "estimate") != 0 && !strstr(tags, t) && used + strlen(t) + 2 < sizeof tags)
            used += (size_t)snprintf(tags + used, sizeof tags - used, "%s%s", used ? " " : "", t);
    }
    printf("%-11s %-36.36s %4s %6s %8s %8s %8s %5s %6s %5s %6s  %s\n", name, d->vendor_name, v[0], v[1], v[2],
           v[3], v[4], v[5], v[6], v[7], v[8], tags[0] ? tags : "none: not a product (see the file's header)");
}

int cli_presets(int json, int names)
{
    lua_State *L = cli_new_state(NULL, 0, NULL);
    lua_Integer i, n;
    if (!L)
        return 1;
    arch_push_presets(L);
    n = luaL_len(L, -1);
    if (n == 0)
        fprintf(stderr, "simtlab: no presets found (looked for arch/*.lua)\n");
    if (names) {   /* one name a line */
        for (i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, i);
            printf("%s\n", lua_tostring(L, -1));
            lua_pop(L, 1);
        }
        sandbox_close(L);
        return n == 0;
    }
    if (json)
        printf("[");
    else
        printf("%-11s %-36s %4s %6s %8s %8s %8s %5s %6s %5s %6s  %s\n", "name", "chip", "SMs", "MHz", "FP32 TF",
               "BF16 TF", "FP8 TF", "GB", "GB/s", "W", "$/h", "sources (per figure: arch/NAME.lua)");
    for (i = 1; i <= n; i++) {
        char name[64], rel[96], path[1024], src[NF][48];
        gpu_desc_t d;
        simt_err_t err;
        lua_rawgeti(L, -1, i);
        snprintf(name, sizeof name, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        snprintf(rel, sizeof rel, "arch/%s.lua", name);
        if (arch_find_file(rel, path, sizeof path) != 0)
            continue;
        simt_err_clear(&err);
        if (arch_load(L, name, &d, &err) != 0 && strstr(err.msg, "CPU") && print_cpu_preset(L, i, name, json))
            continue;
        if (err.msg[0]) {   /* a file that does not load */
            if (json) {
                printf("%s\n  {\"name\": ", i > 1 ? "," : "");
                json_put_string(stdout, name);
                printf(", \"gpu\": false}");
            } else {
                printf("%-11s %s\n", name, err.msg);
            }
            continue;
        }
        for (int k = 0; k < NF; k++)
            preset_source(path, preset_fields[k], src[k], sizeof src[k]);
        double ghz = d.clock_mhz / 1000.0;
        const double tf[3] = { d.sms * (double)d.fp32_lanes_per_sm * 2 * ghz / 1000.0,   /* FP32, BF16, FP8 */
                               d.sms * (double)d.tc_flops_per_clk_bf16 * ghz / 1000.0,
                               d.sms * (double)d.tc_flops_per_clk_fp8 * ghz / 1000.0 };
        if (json)
            print_gpu_json(i, name, &d, tf, src);
        else
            print_gpu_row(name, &d, tf, src);
    }
    if (json)
        printf("\n]\n");
    else
        printf("TF = TFLOP/s from the preset: SMs x lanes (or Tensor Core FLOP per clock) x clock; dense, no sparsity\n"
               "(h100/h200 run at 1980 MHz: NVIDIA quotes their Tensor Core figures at 1830 MHz, BF16 989.4, FP8 1978.9).\n"
               "~ = an estimate. Sources: [spec] reference/gpu-specs.md (datasheets), [meas] measured on an H200\n"
               "(reference/h200-measured.md), [wp] whitepapers, [h200] reused from the h200 preset; see each file's header.\n");
    sandbox_close(L);
    return n == 0;
}
