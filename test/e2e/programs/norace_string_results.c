/* The string hooks compute what libc computes: each rewritten call
 * (strlen, strcmp, strchr, strstr, strcpy, ... from instrumented code) is
 * checked against libc's own function, called through a pointer the pass
 * does not rewrite, on strings that end, differ or match at the first
 * byte, in the middle and at the bound. A thread runs the checks while
 * main waits in join: nothing races; a wrong result aborts the program,
 * which `run` reports as a crash while recording. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t (*volatile libc_strlen)(const char *) = strlen;
static size_t (*volatile libc_strnlen)(const char *, size_t) = strnlen;
static int (*volatile libc_strcmp)(const char *, const char *) = strcmp;
static int (*volatile libc_strncmp)(const char *, const char *,
                                    size_t) = strncmp;
static int (*volatile libc_strcasecmp)(const char *, const char *) = strcasecmp;
static int (*volatile libc_strncasecmp)(const char *, const char *,
                                        size_t) = strncasecmp;
static char *(*volatile libc_strchr)(const char *, int) = strchr;
static char *(*volatile libc_strrchr)(const char *, int) = strrchr;
static char *(*volatile libc_strstr)(const char *, const char *) = strstr;
static void *(*volatile libc_memchr)(const void *, int, size_t) = memchr;

static int failures;

static void expect(long got, long want, const char *what, const char *a,
                   const char *b) {
  if (got != want) {
    fprintf(stderr, "%s(\"%s\", \"%s\"): %ld, libc %ld\n", what, a, b, got,
            want);
    ++failures;
  }
}

static const char *words[] = {"",      "a",        "ab",       "abc",
                              "abd",   "ABC",      "Abd",      "b",
                              "job-7", "job-7 ok", "step 1/2", "step 2/2",
                              "ok ok", "/tmp/x/y", "x/y/z",    "aaab"};

static void *check(void *arg) {
  (void)arg;
  int n = sizeof words / sizeof *words;
  char buf[32];
  for (int i = 0; i < n; ++i) {
    const char *a = words[i];
    expect(strlen(a), libc_strlen(a), "strlen", a, "");
    for (size_t max = 0; max < 10; ++max)
      expect(strnlen(a, max), libc_strnlen(a, max), "strnlen", a, "");
    for (const char *c = "a/bk\0";; ++c) {
      expect(strchr(a, *c) - a, libc_strchr(a, *c) - a, "strchr", a, c);
      expect(strrchr(a, *c) - a, libc_strrchr(a, *c) - a, "strrchr", a, c);
      expect((char *)memchr(a, *c, strlen(a)) - a,
             (char *)libc_memchr(a, *c, strlen(a)) - a, "memchr", a, c);
      if (!*c)
        break;
    }
    for (int j = 0; j < n; ++j) {
      const char *b = words[j];
      /* The sign is the contract; glibc returns the byte difference, and
       * the hooks return libc's own result on the deciding pair. */
      expect(strcmp(a, b), libc_strcmp(a, b), "strcmp", a, b);
      expect(strcasecmp(a, b), libc_strcasecmp(a, b), "strcasecmp", a, b);
      for (size_t k = 0; k < 6; ++k) {
        expect(strncmp(a, b, k), libc_strncmp(a, b, k), "strncmp", a, b);
        expect(strncasecmp(a, b, k), libc_strncasecmp(a, b, k), "strncasecmp",
               a, b);
      }
      expect(strstr(a, b) - a, libc_strstr(a, b) - a, "strstr", a, b);
      strcpy(buf, a);
      strcat(buf, b);
      expect(libc_strcmp(buf, a) >= 0 &&
                 libc_strlen(buf) == libc_strlen(a) + libc_strlen(b) &&
                 !libc_strcmp(buf + libc_strlen(a), b),
             1, "strcat", a, b);
      memset(buf, 'x', sizeof buf);
      strncpy(buf, a, 4);
      expect(!libc_strncmp(buf, a, 4) && buf[4] == 'x', 1, "strncpy", a, "");
      memset(buf, 'x', 4);
      buf[4] = 0;
      strncat(buf, b, 2);
      expect(libc_strlen(buf) == 4 + libc_strnlen(b, 2), 1, "strncat", a, b);
    }
    char *d = strdup(a);
    expect(!libc_strcmp(d, a), 1, "strdup", a, "");
    free(d);
    d = strndup(a, 3);
    expect(!libc_strncmp(d, a, 3) && libc_strlen(d) == libc_strnlen(a, 3), 1,
           "strndup", a, "");
    free(d);
    expect(stpcpy(buf, a) - buf, (long)libc_strlen(a), "stpcpy", a, "");
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, check, NULL);
  pthread_join(t, NULL);
  if (failures)
    abort();
  puts("string results agree with libc");
  return 0;
}
