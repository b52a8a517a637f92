/* stdio on shared buffers, as a logging and a line-reading service use it:
 * a journal thread appends the current record to a file with fwrite while
 * the updater changes it (race U-F), and a reader thread fills the shared
 * line buffer with fgets while a printer thread puts() it (race G-S).
 * ThreadSanitizer's interceptors see fwrite's and puts's reads and fgets's
 * writes; so does the recorder (stdio_hooks.cpp). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
// expect-race: U F
// expect-race: G S

struct record {
  int id;
  int length;
  char tag[8];
} current = {1, 0, "boot"};
char line[64] = "(none)";
FILE *journal, *input;

static void *updater(void *arg) {
  (void)arg;
  current.length = 42; // @U
  return NULL;
}

static void *journal_writer(void *arg) {
  (void)arg;
  fwrite(&current, sizeof current, 1, journal); // @F
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  fgets(line, sizeof line, input); // @G
  return NULL;
}

static void *printer(void *arg) {
  (void)arg;
  puts(line); // @S
  return NULL;
}

int main(void) {
  journal = tmpfile();
  input = tmpfile();
  fputs("config reloaded\n", input);
  rewind(input);
  pthread_t t[4];
  pthread_create(&t[0], NULL, journal_writer, NULL);
  pthread_create(&t[1], NULL, updater, NULL);
  pthread_create(&t[2], NULL, printer, NULL);
  pthread_create(&t[3], NULL, reader, NULL);
  for (int i = 0; i < 4; ++i)
    pthread_join(t[i], NULL);
  fclose(journal);
  fclose(input);
  return 0;
}
