#!/usr/bin/env bash
# A throwaway single-node Slurm (Debian 12: Slurm 22.05, munge) on which CI submits the fleet
# recipe (tests/fleet/). Usage: ci/fleet/single-node-slurm.sh start|stop
#   start  installs slurmctld, slurmd, slurm-client and munge where missing (apt-get, needs root
#          or passwordless sudo), writes a configuration with a fake `gpu` GRES (8 per node, each
#          "device" a link to /dev/null), starts munged, slurmctld and slurmd, and waits until
#          the node is idle. Idempotent: a running cluster is left as is.
#   stop   ends the daemons this script started (by the ids in their pid files).
# Everything lives in $APOD_SLURM_DIR (default /tmp/apod-slurm): configuration, state, logs, its
# own munge key and socket. Nothing under /etc is written, no system service is started, and the
# ports ($APOD_SLURM_PORT and the next one, default 16817) are not Slurm's defaults, so a real
# Slurm on the machine is left alone. Daemons run in the foreground (-D, -F) under setsid: no
# systemd is needed. Clients find the cluster with `export SLURM_CONF=$APOD_SLURM_DIR/slurm.conf`.
# Exit codes: 0 ready or stopped; 1 failed (logs printed); 77 cannot run here (not root, no sudo).
set -euo pipefail

dir=${APOD_SLURM_DIR:-/tmp/apod-slurm}
port=${APOD_SLURM_PORT:-16817}
packages=(slurmctld slurmd slurm-client munge)
daemons=(slurmd slurmctld munged)  # in stopping order
export SLURM_CONF=$dir/slurm.conf

alive() {  # alive NAME: the daemon NAME started here is running
  local pid
  pid=$(cat "$dir/$1.pid" 2>/dev/null) || return 1
  kill -0 "$pid" 2>/dev/null
}

node_state() { sinfo -h -N -o %T 2>/dev/null | head -n 1; }

stop() {
  local name pid
  for name in "${daemons[@]}"; do
    pid=$(cat "$dir/$name.pid" 2>/dev/null) || continue
    if kill "$pid" 2>/dev/null; then
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -9 "$pid" 2>/dev/null || true  # a daemon stuck past 5 s
    fi
    rm -f "$dir/$name.pid"
  done
}

install_missing() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "single-node-slurm: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

write_config() {
  local host node
  host=$(hostname -s)
  # The node as slurmd sees it (CPUs, sockets, memory), so it registers without being drained.
  node=$(slurmd -C | head -n 1)
  mkdir -p "$dir/state" "$dir/spool"
  cat > "$dir/slurm.conf" <<EOF
ClusterName=apod-ci
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.daemon.pid
SlurmdPidFile=$dir/slurmd.daemon.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
# No cgroups in a container: track processes by parent id, bind nothing.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
# No slurmdbd: finished jobs stay in slurmctld (scontrol show job) for MinJobAge seconds and are
# written, one line each with state and exit code, to the job completion log.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.log
MinJobAge=3600
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=2
MpiDefault=none
MailProg=/bin/true
$node NodeAddr=127.0.0.1 Gres=gpu:8 State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  # slurmd reads gres.conf beside slurm.conf. Slurm 22.05 drops a gpu GRES without device files
  # ("Removing file-less GPU", Flags=CountOnly included) and wants character devices: links to
  # /dev/null are both, and nothing can be done to them.
  local i
  for i in {0..7}; do ln -sfn /dev/null "$dir/gpu$i"; done
  echo "NodeName=$host Name=gpu File=$dir/gpu[0-7]" > "$dir/gres.conf"
  if [[ ! -f $dir/munge.key ]]; then
    dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge.key"
  fi
}

launch() {  # launch NAME COMMAND...: in the foreground of its own session, its pid kept
  local name=$1
  shift
  setsid "$@" > "$dir/$name.out" 2>&1 < /dev/null &
  echo $! > "$dir/$name.pid"
}

start() {
  if alive munged && alive slurmctld && alive slurmd && [[ $(node_state) == idle ]]; then
    echo "single-node-slurm: already running ($SLURM_CONF)"
    return 0
  fi
  stop  # a half-started cluster from an earlier call
  install_missing
  mkdir -p "$dir"
  chmod 755 "$dir"
  write_config
  launch munged munged -F --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
    --pid-file="$dir/munged.daemon.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"
  for _ in $(seq 50); do [[ -S $dir/munge.socket ]] && break; sleep 0.1; done
  launch slurmctld slurmctld -D -c -f "$SLURM_CONF"  # -c: a fresh state, no jobs of a past cluster
  launch slurmd slurmd -D -f "$SLURM_CONF"
  local state=""
  for _ in $(seq 120); do
    state=$(node_state)
    [[ $state == idle || $state == inval || $state == drain* || $state == down* ]] && break
    sleep 0.5
  done
  if [[ $state != idle ]]; then
    echo "single-node-slurm: the node is '${state:-unknown}', not idle" >&2
    tail -n 20 "$dir"/*.out >&2 || true
    stop
    return 1
  fi
  echo "single-node-slurm: node $(hostname -s) idle; export SLURM_CONF=$SLURM_CONF"
}

case ${1:-} in
  start | stop) ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
if [[ $(id -u) -ne 0 ]]; then
  # Packages and daemons that run jobs as their submitter need root.
  if sudo -n true 2>/dev/null; then
    exec sudo -n --preserve-env=APOD_SLURM_DIR,APOD_SLURM_PORT "$0" "$@"
  fi
  echo "single-node-slurm: needs root or passwordless sudo" >&2
  exit 77
fi
"$1"
