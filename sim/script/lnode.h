/* lnode.h - simt.node{...}: several simulated GPUs joined by links
 * (sim/core/node.h), with collectives and a clock (see lnode.c). */
#ifndef SIMT_LNODE_H
#define SIMT_LNODE_H

#include <lua.h>

/* Register the node class and set simt.node in the table on top of the
 * stack (the simt module). */
void lnode_register(lua_State *L);

#endif
