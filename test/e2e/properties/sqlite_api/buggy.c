/* SQLite-style core API protocol (Carril 2017 §6), on a miniature of the
 * API: the worker runs a query and tells main it is done *before* it
 * finalizes its statement, so main may close the connection while the
 * statement is still live. The observed run finalized first (a test-only
 * pipe the recorder does not see); the close before the finalize is
 * predicted.
 * (The thesis' program is not available; this is a small program of the
 * scenario it describes.)
 * expect-violation: close_with_live_statement prepare close */
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
  db_prepare(&db, &query); // @prepare
  while (db_step(&query))
    ;
  atomic_store(&done, 1); // too early: the statement is not finalized yet
  db_finalize(&query);
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
  int busy = db_close(&db); // @close
  pthread_join(t, 0);
  return busy;
}
