/* lchart.h - simt.chart{...}: save a line chart as a PNG (sim/view/chart).
 *
 *   simt.chart{path = "sweep.png", title = "...", x_label = "SMs",
 *              y_label = "time (us)", x = {1, 2, 4}, log_x = true,
 *              series = {{name = "matmul", y = {9, 5, 3}}}}
 *
 * Built without SDL2 (SIMT_HAVE_VIEW undefined), simt.chart raises an
 * error saying so.
 */
#ifndef SIMT_LCHART_H
#define SIMT_LCHART_H

#include <lua.h>

/* Add chart to the table on top of the stack. */
void lchart_register(lua_State *L);

#endif
