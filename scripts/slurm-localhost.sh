#!/usr/bin/env bash
# Starts (or stops) a private single-node Slurm cluster on localhost for the
# `racepredict batch --slurm` integration test: munged + slurmctld + slurmd,
# run by hand (no systemd), every file under one state directory, free
# ports, a private munge socket — so it never touches /etc/slurm or a
# cluster the machine may already run, and two copies can coexist.
#
#   scripts/slurm-localhost.sh start DIR   # prints `export SLURM_CONF=…`
#   scripts/slurm-localhost.sh stop DIR
#
# Exit status of start: 0 when the node is idle and accepts jobs; 77 when
# Slurm cannot run here (not root, packages missing, daemons refuse to
# start), with the reason on stderr — the test then skips (CTest
# SKIP_RETURN_CODE 77). Packages: slurm-wlm and munge (scripts/install-deps.sh).
set -uo pipefail

cmd="${1:-}"
dir="${2:-}"
if [ -z "$cmd" ] || [ -z "$dir" ]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

skip() {
  echo "slurm-localhost: cannot run Slurm here: $*" >&2
  exit 77
}

stop_cluster() {
  # Only the daemons this script started, by the pids they wrote.
  for p in slurmd slurmctld munged; do
    f="$dir/$p.pid"
    [ -f "$f" ] || continue
    pid="$(cat "$f" 2>/dev/null)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    fi
    rm -f "$f"
  done
}

if [ "$cmd" = stop ]; then
  stop_cluster
  exit 0
fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

[ "$(id -u)" -eq 0 ] || skip "slurmd must run as root to start job steps (running as $(id -un))"
for b in munged slurmctld slurmd sbatch sinfo; do
  command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] ||
    skip "'$b' is not installed (apt-get install slurm-wlm munge)"
done
export PATH="$PATH:/usr/sbin"

mkdir -p "$dir"/{state,spool,log}
dir="$(cd "$dir" && pwd)"
stop_cluster

# Free TCP ports for slurmctld and slurmd (another copy may be running).
read -r ctld_port slurmd_port < <(python3 - <<'EOF'
import socket
ports = []
socks = []
for _ in range(2):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
    ports.append(s.getsockname()[1])
print(*ports)
EOF
)

# munge: private key, socket, pid and log files.
key="$dir/munge.key"
if [ ! -s "$key" ]; then
  head -c 1024 /dev/urandom >"$key"
fi
chmod 0400 "$key"
sock="$dir/munge.socket"
munged --force --key-file="$key" --socket="$sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munged.seed" \
  >"$dir/log/munged.out" 2>&1 || skip "munged did not start: $(tail -n 3 "$dir/log/munged.out" "$dir/log/munged.log" 2>/dev/null)"

ncpu="$(nproc)"
conf="$dir/slurm.conf"
cat >"$conf" <<EOF
# Written by scripts/slurm-localhost.sh: a one-node cluster on localhost.
ClusterName=racepredict-test
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
# No cgroups, no systemd, no accounting: processes are tracked by pgid.
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$ncpu State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
# slurmd reads cgroup.conf only for cgroup plugins; an empty one avoids a
# warning about the missing file on some builds.
: >"$dir/cgroup.conf"
export SLURM_CONF="$conf"

slurmctld -f "$conf" -c >"$dir/log/slurmctld.out" 2>&1 ||
  { stop_cluster; skip "slurmctld did not start: $(tail -n 5 "$dir/log/slurmctld.log" 2>/dev/null)"; }
slurmd -f "$conf" -N localhost >"$dir/log/slurmd.out" 2>&1 ||
  { stop_cluster; skip "slurmd did not start: $(tail -n 5 "$dir/log/slurmd.log" 2>/dev/null)"; }

# Wait until the node is idle (slurmd registered).
for _ in $(seq 60); do
  state="$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)"
  case "$state" in
  idle*) echo "export SLURM_CONF=$conf"; exit 0 ;;
  esac
  sleep 0.5
done
msg="node state '${state:-none}' after 30 s: $(tail -n 5 "$dir/log/slurmd.log" "$dir/log/slurmctld.log" 2>/dev/null)"
stop_cluster
skip "$msg"
