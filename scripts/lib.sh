# Shared by scripts/up.sh and scripts/test.sh: install what is missing, start what is needed.
# Installs system packages only when run as root on Debian/Ubuntu and the thing is missing;
# on a machine where Docker already runs, nothing system-wide is installed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.scalelab"
mkdir -p "$STATE/logs"
PNPM_VERSION=10.34.8

log() { printf '\033[1;34m[scalelab]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[scalelab] error:\033[0m %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }

APT_UPDATED=0
apt_install() {
  command -v apt-get >/dev/null || die "cannot install $* automatically (no apt-get); install it and retry"
  is_root || die "$* is missing; install it (as root: apt-get install -y $*) and retry"
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    apt-get update -qq >"$STATE/logs/apt.log" 2>&1 || die "apt-get update failed, see $STATE/logs/apt.log"
    APT_UPDATED=1
  fi
  log "installing $* (Debian packages)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$STATE/logs/apt.log" 2>&1 \
    || die "apt-get install $* failed, see $STATE/logs/apt.log"
}

ensure_node() {
  command -v node >/dev/null || apt_install nodejs npm
  # Prisma 7 needs 20.19 or later.
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' \
    || die "Node.js >= 20.19 is required (found $(node --version))"
}

# The pinned pnpm, installed into the checkout (never system-wide) when it is not on PATH.
ensure_pnpm() {
  export PATH="$STATE/tools/node_modules/.bin:$PATH"
  if command -v pnpm >/dev/null && [ "$(pnpm --version)" = "$PNPM_VERSION" ]; then return; fi
  log "installing pnpm@$PNPM_VERSION into $STATE/tools"
  npm install --prefix "$STATE/tools" --no-save --no-audit --no-fund "pnpm@$PNPM_VERSION" >"$STATE/logs/pnpm-install.log" 2>&1 \
    || die "installing pnpm failed, see $STATE/logs/pnpm-install.log"
}

ensure_go() {
  command -v go >/dev/null || [ -x /usr/local/go/bin/go ] || die "Go >= 1.24 is needed to build the testbed and k6 (https://go.dev/dl); Debian 12's golang-go is too old"
  command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
  local v; v="$(go env GOVERSION)"
  [[ "$v" =~ ^go1\.([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 24 ] || die "Go >= 1.24 is needed to build k6 (found $v)"
}

docker_ok() { docker info >/dev/null 2>&1; }

ensure_docker() {
  if docker_ok; then return; fi
  if ! command -v dockerd >/dev/null; then
    is_root || die "no Docker engine is reachable; start Docker (or run this as root on Debian to install docker.io)"
    apt_install docker.io iptables
  fi
  is_root || die "no Docker engine is reachable and dockerd can only be started as root; start Docker and retry"
  if ! pgrep -x dockerd >/dev/null; then
    log "starting dockerd (log: $STATE/logs/dockerd.log)"
    # setsid: the engine must outlive this script and its terminal.
    setsid nohup dockerd >"$STATE/logs/dockerd.log" 2>&1 < /dev/null &
  fi
  for _ in $(seq 1 60); do docker_ok && return; sleep 1; done
  die "dockerd did not answer within 60 s, see $STATE/logs/dockerd.log"
}

# Tools the scripts and the image bootstrap use. debootstrap builds the Debian base image
# where no registry can be reached; as non-root the base is pulled instead.
ensure_tools() {
  local missing=()
  command -v curl >/dev/null || missing+=(curl)
  if is_root && ! command -v debootstrap >/dev/null; then missing+=(debootstrap); fi
  [ "${#missing[@]}" = 0 ] || apt_install "${missing[@]}"
}

# Playwright drives Debian's Chromium (it cannot download its own browser here); elsewhere,
# point SCALELAB_CHROMIUM at a Chromium or Chrome binary.
ensure_chromium() {
  if [ -n "${SCALELAB_CHROMIUM:-}" ]; then
    [ -x "$SCALELAB_CHROMIUM" ] || die "SCALELAB_CHROMIUM=$SCALELAB_CHROMIUM is not an executable"
    return
  fi
  [ -x /usr/bin/chromium ] || apt_install chromium
}

ensure_workspace() {
  cd "$ROOT"
  log "pnpm install"
  pnpm install --frozen-lockfile --prefer-offline >"$STATE/logs/pnpm-install.log" 2>&1 \
    || { tail -30 "$STATE/logs/pnpm-install.log" >&2; die "pnpm install failed, see $STATE/logs/pnpm-install.log"; }
}

# control_plane DB_NAME REDIS_DB [--fresh]: exports DATABASE_URL and REDIS_URL. Values given in
# the environment win; the containers are started only for what is not given.
control_plane() {
  local db="$1" redis_db="$2"; shift 2
  if [ -n "${DATABASE_URL:-}" ] && [ -n "${REDIS_URL:-}" ]; then
    log "using DATABASE_URL and REDIS_URL from the environment"
    (cd "$ROOT/tooling/lab" && pnpm --silent lab migrate)
    return
  fi
  local given_db="${DATABASE_URL:-}" given_redis="${REDIS_URL:-}"
  log "control plane: postgres + redis containers (database $db)"
  (cd "$ROOT/tooling/lab" && pnpm --silent lab control-plane up --database "$db" --redis-db "$redis_db" --write-env "$STATE/env.$db" "$@")
  set -a; . "$STATE/env.$db"; set +a
  [ -n "$given_db" ] && export DATABASE_URL="$given_db" && (cd "$ROOT/tooling/lab" && pnpm --silent lab migrate)
  [ -n "$given_redis" ] && export REDIS_URL="$given_redis"
  return 0
}

build_lab_images() {
  log "lab images (first time: bootstraps a Debian base and compiles k6, several minutes)"
  pnpm --silent images --lab || die "building the lab images failed"
}

# wait_http URL SECONDS
wait_http() {
  local url="$1" secs="$2"
  for _ in $(seq 1 "$secs"); do
    curl -fsS -o /dev/null "$url" 2>/dev/null && return 0
    sleep 1
  done
  return 1
}

# stop_pidfile FILE: stop the process group recorded in FILE, if it runs.
stop_pidfile() {
  local f="$1"
  [ -f "$f" ] || return 0
  local pid; pid="$(cat "$f")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

# start_bg NAME LOGFILE CMD...: start CMD in its own process group, record its pid.
start_bg() {
  local name="$1" logfile="$2"; shift 2
  setsid nohup "$@" >"$logfile" 2>&1 < /dev/null &
  echo $! >"$STATE/$name.pid"
}
