/* lineedit.c: the line editor of builds without readline: the vendored
 * linenoise (vendor/linenoise, BSD-2-Clause; its README.cuplay says where it
 * is from) compiled as one unit, as its own Makefile ships it, with UTF-8.
 * Its string buffer's functions are renamed so they cannot meet ours
 * (base/util has an sb_free of its own); nothing else of it is visible. */
#define USE_UTF8 1
#define sb_alloc lineedit_sb_alloc
#define sb_append lineedit_sb_append
#define sb_append_len lineedit_sb_append_len
#define sb_chars lineedit_sb_chars
#define sb_clear lineedit_sb_clear
#define sb_copy lineedit_sb_copy
#define sb_delete lineedit_sb_delete
#define sb_delete_chars lineedit_sb_delete_chars
#define sb_delete_space lineedit_sb_delete_space
#define sb_free lineedit_sb_free
#define sb_get_charlen lineedit_sb_get_charlen
#define sb_getline lineedit_sb_getline
#define sb_insert_chars lineedit_sb_insert_chars
#define sb_insert_len lineedit_sb_insert_len
#define sb_insert_space lineedit_sb_insert_space
#define sb_invalidate_charlen lineedit_sb_invalidate_charlen
#define sb_len lineedit_sb_len
#define sb_realloc lineedit_sb_realloc
#define sb_str lineedit_sb_str
#define sb_to_string lineedit_sb_to_string
#include "linenoise/utf8.c"
#include "linenoise/stringbuf.c"
#include "linenoise/linenoise.c"
