//===- record/string_hooks.h - String copies other hooks build on ---------===//
//
// The pass rewrites these calls by name (hooks.def REWRITE, no signature
// there), so the hooks built on them — strdup (string_read_hooks.cpp), the
// fortified __*_chk copies (fortify_hooks.cpp), stdio's string reads
// (stdio_hooks.cpp) — declare them here, next to their definitions' own
// declaration (string_hooks.cpp, string_read_hooks.cpp).
//
#pragma once

#include <stddef.h>
#include <stdint.h>

extern "C" {
char *__racepredict_strcpy(char *dst, const char *src, uint32_t loc);
char *__racepredict_stpcpy(char *dst, const char *src, uint32_t loc);
char *__racepredict_strncpy(char *dst, const char *src, size_t n, uint32_t loc);
char *__racepredict_strcat(char *dst, const char *src, uint32_t loc);
char *__racepredict_strncat(char *dst, const char *src, size_t n, uint32_t loc);
/// The reads of the string at s up to its terminator, `max` bytes at most,
/// as libc scans it (string_read_hooks.cpp).
size_t __racepredict_strnlen(const char *s, size_t max, uint32_t loc);
}
