/* lroofline.h - simt.roofline{...}: save a roofline chart as a PNG
 * (sim/view/roofline).
 *
 *   simt.roofline{path = "roofline.png", title = "Roofline: h200",
 *                 roofs = {{name = "FP32", tflops = 66.9}, ...},
 *                 bandwidths = {{name = "DRAM", tbs = 4.8}, ...},
 *                 points = {{name = "matmul_naive", intensity = 0.5, tflops = 2.1}, ...},
 *                 subtitle = "...", width = 1280, height = 720}
 *
 * The first roof and the first bandwidth make the marked ridge point
 * (FP32 and DRAM, by convention). Built without SDL2 (SIMT_HAVE_VIEW
 * undefined), simt.roofline raises an error saying so.
 */
#ifndef SIMT_LROOFLINE_H
#define SIMT_LROOFLINE_H

#include <lua.h>

/* Add roofline to the table on top of the stack. */
void lroofline_register(lua_State *L);

#endif
