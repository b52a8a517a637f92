/*===- abi/replay.h - What the replay runtime and the tool agree on -----===*/
/*
 * Shared by runtime/replay (C-compatible, no STL) and the racepredict tool:
 * the schedule file version, the exit status of a process ended by the
 * deadlock watchdog, and the keys of the result file (docs/replay.md).
 */
#ifndef RACEPREDICT_ABI_REPLAY_H
#define RACEPREDICT_ABI_REPLAY_H

/* Bump with any change of the schedule file syntax (runtime/replay). */
#define RP_SCHEDULE_VERSION 2

/* The flags field of a `step` line, a bit set (a runtime that knows fewer
 * bits rejects the file: "unknown step flags"): a wait the trace shows woken
 * by no notify; a timed call that returned after its deadline (replay
 * returns from it only then). */
#define RP_STEP_NO_NOTIFY 1
#define RP_STEP_PAST_DEADLINE 2

/* A replayed process in which the watchdog saw the predicted deadlock ends
 * with this status (after writing `verdict confirmed` to the result file),
 * so that a deadlocked program never hangs the caller. */
#define RP_REPLAY_DEADLOCK_EXIT 86

/* The result file: one `key value` line each, values run to the end of
 * the line. `verdict` is one of the three below and always comes first. */
#define RP_VERDICT_CONFIRMED "confirmed"
#define RP_VERDICT_DIVERGED "diverged"
#define RP_VERDICT_NOT_REPRODUCED "not-reproduced"
/* Violation schedules only: every step ran as scheduled; the `observe`
 * lines that follow say what each step did, and the tool decides. */
#define RP_VERDICT_REACHED "reached"

#endif
