/* node_view.h - a picture of a node of GPUs and its links, as a PNG
 * (headless, like chart.h): GPUs as boxes round a hub (the NVSwitch, the
 * PCIe switch or the host's memory) or in a ring, each link a line whose
 * thickness shows how busy it was (bytes it moved over the time shown,
 * against its bandwidth), labelled with its GB/s. Reads numbers it is
 * given; never touches the simulator. Same input, same PNG bytes.
 */
#ifndef SIMT_NODE_VIEW_H
#define SIMT_NODE_VIEW_H

#include <stdio.h>

#include "err.h"

#define NODE_VIEW_MAX_GPUS 8

typedef struct node_view_link {
    int a, b;             /* GPU indices 0..n-1, or -1 for the hub          */
    double gbs;           /* average rate shown (GB/s, the busier direction) */
    double cap_gbs;       /* the link's bandwidth one way (GB/s)             */
} node_view_link_t;

typedef struct node_view {
    const char *title;    /* top line                                        */
    const char *subtitle; /* second line (the link and its figures)          */
    const char *gpu_label;/* inside each box under "GPU n" (e.g. "h200")     */
    const char *hub_label;/* the centre ("NVSwitch", "host memory"); NULL: a
                             ring, no hub                                    */
    int ngpus;            /* 1..NODE_VIEW_MAX_GPUS                           */
    const node_view_link_t *links;
    int nlinks;           /* at most 2 x NODE_VIEW_MAX_GPUS                  */
    int width, height;    /* pixels; 0 = 960 x 640                           */
} node_view_t;

/* Draw v and write it as a PNG to f (closed here; path names it in
 * messages). Returns 0, or -1 with err. */
int node_view_save_png_file(const node_view_t *v, FILE *f, const char *path, simt_err_t *err);

#endif
