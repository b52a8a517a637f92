/* The SQLite-style API, fixed: the worker finalizes before it reports
 * that it is done. (The test-only pipe only keeps main from spinning in
 * the observed run; the recorder does not see it, the flag is the
 * synchronisation the analysis relies on.) */
#include <pthread.h>
#include <stdatomic.h>

#include "testonly.h"

typedef struct {
  int is_open, live;
} db_t;
typedef struct {
  db_t *db;
  int row;
} stmt_t;

int db_open(db_t *db) { return db->is_open = 1, 0; }
int db_prepare(db_t *db, stmt_t *s) {
  s->db = db;
  s->row = 0;
  db->live++;
  return 0;
}
int db_step(stmt_t *s) { return ++s->row < 3; }
int db_finalize(stmt_t *s) { return s->db->live--, 0; }
int db_close(db_t *db) { return db->is_open = 0, db->live; }

static db_t db;
static stmt_t query;
static atomic_int done;

static void *worker(void *arg) {
  (void)arg;
  db_prepare(&db, &query);
  while (db_step(&query))
    ;
  db_finalize(&query);
  atomic_store(&done, 1);
  testonly_signal();
  return 0;
}

int main(void) {
  pthread_t t;
  testonly_init();
  db_open(&db);
  pthread_create(&t, 0, worker, 0);
  testonly_wait();
  while (!atomic_load(&done))
    ;
  int busy = db_close(&db);
  pthread_join(t, 0);
  return busy;
}
