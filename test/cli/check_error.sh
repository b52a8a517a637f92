#!/usr/bin/env bash
# Usage: check_error.sh EXPECTED_STATUS EXPECTED_STDERR_SUBSTRING -- CMD ARGS...
# Fails unless CMD exits with EXPECTED_STATUS and its stderr contains the text.
set -u
want_rc=$1; want_msg=$2; shift 3
err=$("$@" 2>&1 >/dev/null); rc=$?
if [ "$rc" != "$want_rc" ]; then echo "exit status $rc, expected $want_rc; stderr: $err"; exit 1; fi
case "$err" in *"$want_msg"*) ;; *) echo "stderr '$err' lacks '$want_msg'"; exit 1;; esac
echo "ok: $want_msg"
