/* ccprog.h: the program NVRTC compiles around a kernel file (ccache.c
 * writes it): which defines go before the toolkit headers, which headers
 * can be compiled ahead of them, and NVRTC's words about the program put
 * in the user's. */
#ifndef CUPLAY_CCPROG_H
#define CUPLAY_CCPROG_H

/* A define NVRTC must see before every header (reserved, or a library's prefix). */
int ccprog_define_for_headers(const char *def);
/* The header at path starts with an include guard or `#pragma once`. */
int ccprog_guarded(const char *path);
/* A name can stand in a #include "..." line of the program. */
int ccprog_includable(const char *name);
/* "(declared at line 3 of k.cu (defines))" as "(a define: //@ define or
 * set)"; takes msg, returns it or its rewrite. */
char *ccprog_name_defines(char *msg, const char *program);

#endif
